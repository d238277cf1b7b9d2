"""The routes outside the spec: the served spec, health, and the test-only `/_emulator/...`
routes (stats, operation times, faults, the clock) and presigned payload and checkpoint URLs."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..base import found_or_404, spec_bytes
from ..state import CHECKPOINT_FILE_ROUTE, PAYLOAD_ROUTE, OperationRow
from ._faults import parse_fault
from ._http import API_PREFIX, JSON, json_response, parse_json, read_body, require_object
from ._state import EmulatorState, state_of

__all__ = ["EMULATOR_ROUTES", "api_route_keys"]


async def serve_spec(request: Request) -> Response:
    return Response(spec_bytes(), media_type="application/yaml")


async def healthz(request: Request) -> Response:
    return json_response({"status": "ok"})


async def emulator_stats(request: Request) -> Response:
    st = state_of(request)
    owner = st.authenticate(request)
    body: dict[str, Any] = dict(st.stats.snapshot(owner))
    body["sessions"] = st.service.sessions.stats(owner)
    body["queued_operations"] = st.worker.pending(body["sessions"].keys())
    return json_response(body)


def _operation_times(st: EmulatorState, row: OperationRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "session_id": row.session_id,
        "kind": row.kind,
        "status": row.status,
        "submitted_at": row.submitted_at,
        "started_at": row.started_at,
        "finished_at": row.finished_at,
        "queue_position": st.worker.queue_position(row.id),
        "timing": str(st.timing),
        "predicted_seconds": row.predicted_seconds,
    }


async def emulator_operation(request: Request) -> Response:
    """When one of the caller's operations arrived, started and finished (Unix seconds, server
    clock), how many operations run before it starts (`queue_position`, null once it is over),
    and how long the timing model holds it (`predicted_seconds`: from its start with
    `--timing realistic`, from its POST with `fixed`; null until it starts)."""
    st = state_of(request)
    owner = st.authenticate(request)
    operation_id = request.path_params["operation_id"]
    row = found_or_404(
        st.store.find_operation(owner, operation_id), "operation", "operation_id", operation_id
    )
    return json_response(_operation_times(st, row))


async def emulator_session_operations(request: Request) -> Response:
    """The same for every operation of one of the caller's sessions, in submission order."""
    st = state_of(request)
    owner = st.authenticate(request)
    rows = st.store.session_operations(owner, request.path_params["session_id"])
    return json_response({"data": [_operation_times(st, row) for row in rows]})


async def emulator_faults(request: Request) -> Response:
    st = state_of(request)
    owner = st.authenticate(request)
    if request.method == "DELETE":
        return json_response({"cleared": st.faults.clear(owner)})
    if request.method == "GET":
        return json_response({"faults": st.faults.armed(owner)})
    body = parse_json(await read_body(request, st.max_body_bytes))
    fault = parse_fault(body, api_route_keys(request.app.routes))
    st.faults.arm(owner, fault)
    return json_response({"fault_id": fault.id})


async def presigned_payload(request: Request) -> Response:
    """`PUT` (upload a request body) or `GET` (download) a payload by its presigned URL: the
    `token` query parameter is the credential, and no Authorization header is needed."""
    st = state_of(request)
    payload_id = request.path_params["payload_id"]
    token = request.query_params.get("token")
    if request.method == "PUT":
        st.service.presigned_payload(payload_id, token)  # 404/403 before reading the body
        raw = await read_body(request, st.max_body_bytes, json_only=False)
        st.service.put_payload(payload_id, token, raw)
        return json_response({"payload_id": payload_id, "size": len(raw)})
    return json_response(st.service.payload_body(payload_id, token))


async def presigned_checkpoint_file(request: Request) -> Response:
    """A checkpoint file by its presigned URL (`token` is the credential, no Authorization)."""
    params = request.path_params
    data = state_of(request).service.checkpoints.file(
        params["checkpoint_id"], params["variant"], params["filename"],
        request.query_params.get("token"),
    )  # fmt: skip
    media = JSON if params["filename"].endswith(".json") else "application/octet-stream"
    return Response(data, media_type=media)


async def emulator_clock(request: Request) -> Response:
    """`GET`: the caller's emulator clock. `POST {"advance_seconds": N}`: move it N seconds
    forward (to test expiry without waiting), then apply expiry. Each API key has its own clock
    (`_clock.py`): another key's resources keep their time."""
    st = state_of(request)
    owner = st.authenticate(request)
    if request.method == "POST":
        body = require_object(parse_json(await read_body(request, st.max_body_bytes)))
        st.service.clock.advance(owner, body.get("advance_seconds"))
        st.expire_idle()
    return json_response({"now": st.service.clock.now(owner)})


def api_route_keys(routes: list[BaseRoute]) -> set[str]:
    keys: set[str] = set()
    for route in routes:
        if isinstance(route, Route) and route.path.startswith(API_PREFIX + "/"):
            keys.update(f"{m} {route.path}" for m in route.methods or () if m != "HEAD")
    return keys


EMULATOR_ROUTES: list[BaseRoute] = [
    Route("/openapi.yaml", serve_spec, methods=["GET"]),
    Route("/healthz", healthz, methods=["GET"]),
    Route("/_emulator/stats", emulator_stats, methods=["GET"]),
    Route("/_emulator/operations/{operation_id}", emulator_operation, methods=["GET"]),
    Route(
        "/_emulator/sessions/{session_id}/operations",
        emulator_session_operations,
        methods=["GET"],
    ),
    Route("/_emulator/faults", emulator_faults, methods=["GET", "POST", "DELETE"]),
    Route(PAYLOAD_ROUTE, presigned_payload, methods=["GET", "PUT"]),
    Route(CHECKPOINT_FILE_ROUTE, presigned_checkpoint_file, methods=["GET"]),
    Route("/_emulator/clock", emulator_clock, methods=["GET", "POST"]),
]
