"""The HTTP layer: Starlette routes built from the spec's paths, auth, body limits, errors, faults.

Routes: every path of the installed spec under `/v1` (a spec operation without a handler here is
a startup error), plus `GET /openapi.yaml`, `GET /healthz`, the test-only `/_emulator/stats` and
`/_emulator/faults` and `/_emulator/clock`, and the presigned URLs of payloads
(`/_emulator/payloads/{payload_id}?token=...`) and checkpoint files
(`/_emulator/checkpoints/{checkpoint_id}/{variant}/{filename}?token=...`).
Each answer is JSON; errors are the spec's `ErrorData`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import orjson
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match, Route
from starlette.types import Message, Receive, Scope, Send

from ._catalog import supported_models_body
from ._checkpoints import CHECKPOINT_FILE_ROUTE
from ._errors import ApiError, invalid
from ._fast_decode import DecodedBody, decode_body
from ._faults import IMMEDIATE_KINDS, FaultInjector, immediate_error, parse_fault
from ._kinds import KINDS, kind_named
from ._payloads import PAYLOAD_ROUTE
from ._service import EmulatorService, not_found
from ._spec import EMULATOR_SOURCE, load_spec, operation_rule_sources, spec_bytes
from ._stats import Stats
from ._store import Store
from ._validation import validate_parameter
from ._worker import OperationWorker

__all__ = ["EmulatorApp", "EmulatorState", "build_routes", "create_app", "owner_id"]

log = logging.getLogger("together_rl_emulator")

API_PREFIX = "/v1"
# Where a request's scope records the spec operation it was routed to.
OPERATION_ID_SCOPE_KEY = "together_rl_emulator.operation_id"
# Bodies larger than this are decoded and validated in a worker thread, off the event loop.
THREADPOOL_BODY_BYTES = 256 * 1024
JSON = "application/json"
# Request header limits (431 beyond them), as common HTTP servers and proxies set them.
MAX_HEADER_COUNT = 100
MAX_HEADER_BYTES = 16 * 1024


def owner_id(api_key: str, secret: bytes) -> str:
    """The stable identity of an API key (never the key itself): stored as owner and created_by.
    Keyed with a server-side secret, so a `created_by` value cannot confirm a guessed key."""
    return "user-" + hmac.new(secret, api_key.encode(), hashlib.sha256).hexdigest()[:16]


def _owner_secret(state_dir: str | Path | None) -> bytes:
    """A random secret, kept in the state dir (when there is one) so owner ids survive restarts."""
    if state_dir is None:
        return os.urandom(32)
    path = Path(state_dir) / "owner-secret"
    if path.exists():
        return bytes.fromhex(path.read_text().strip())
    secret = os.urandom(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(secret.hex())
    return secret


def json_response(
    content: Any, status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    body = content if isinstance(content, bytes) else orjson.dumps(content)
    return Response(body, status_code=status, headers=headers, media_type=JSON)


def error_response(error: ApiError) -> Response:
    return json_response(error.body(), error.status, error.headers)


class EmulatorState:
    """Everything one app instance owns, reachable as `app.state.emulator`."""

    def __init__(
        self,
        api_keys: list[str],
        seed: int,
        op_latency_ms: int,
        state_dir: str | Path | None,
        max_body_mb: float,
    ) -> None:
        if not api_keys or any(not k for k in api_keys):
            raise ValueError("at least one non-empty API key is required")
        self.store = Store(state_dir)
        secret = _owner_secret(state_dir)
        self.owners = {owner_id(k, secret): k.encode() for k in api_keys}
        self.max_body_bytes = int(max_body_mb * 1024 * 1024)
        self.op_latency_ms = op_latency_ms
        self.stats = Stats()
        self.faults = FaultInjector()
        self.worker = OperationWorker(self.store, op_latency_ms)
        self.service = EmulatorService(self.store, self.worker, self.stats, seed)
        self.store.clean_stale_files()
        self.requeued = self.service.requeue_unfinished()

    def owner_of(self, authorization: str | None) -> str | None:
        """The owner id of a valid `Authorization: Bearer <key>` header, else None."""
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        given = token.strip().encode()
        for owner, key in self.owners.items():
            if hmac.compare_digest(given, key):
                return owner
        return None

    def authenticate(self, request: Request) -> str:
        header = request.headers.get("authorization")
        owner = self.owner_of(header)
        if owner is not None:
            return owner
        scheme, _, token = (header or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(
                401,
                "Authorization: missing bearer token (send 'Authorization: Bearer <API key>')",
                type="authentication_error",
                param="Authorization",
                code="missing_api_key",
            )
        raise ApiError(
            401,
            "Authorization: the API key is not valid",
            type="authentication_error",
            param="Authorization",
            code="invalid_api_key",
        )

    def expire_idle(self) -> None:
        """Stop the model resources idle past `expires_at` (their sessions EXPIRED)."""
        if self.service.model_resources.expire_idle():
            self.worker.wake()

    def close(self) -> None:
        self.worker.stop()
        self.store.close()


def _state(request: Request) -> EmulatorState:
    state: EmulatorState = request.app.state.emulator
    return state


async def read_body(request: Request, limit: int, *, json_only: bool = True) -> bytes:
    """The raw body, refusing (413) a declared or streamed size over `limit` and (415, with
    `json_only`) a non-empty body whose Content-Type is not JSON."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise invalid("Content-Length", "must be a non-negative integer")
        if int(declared) > limit:
            raise _too_large(limit)
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise _too_large(limit)
            chunks.append(chunk)
    except ClientDisconnect:
        raise invalid(None, "the client disconnected before sending the whole body") from None
    body = b"".join(chunks)
    if json_only and not _blank(body):
        _require_json_media_type(request.headers.get("content-type"))
    return body


def _require_json_media_type(content_type: str | None) -> None:
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media != JSON and not media.endswith("+json"):
        raise ApiError(
            415,
            f"Content-Type: expected {JSON}, got {content_type or 'none'}",
            param="Content-Type",
            code="unsupported_media_type",
        )


def _too_large(limit: int) -> ApiError:
    return ApiError(
        413,
        f"the request body is larger than this server accepts ({limit} bytes)",
        code="payload_too_large",
    )


def _blank(raw: bytes) -> bool:
    """Empty or only whitespace (without copying a large body, as `raw.strip()` would)."""
    return not raw or raw.isspace()


def parse_json(raw: bytes, *, allow_empty: bool = False) -> Any:
    if _blank(raw):
        if allow_empty:
            return None
        raise invalid(None, "the request body is empty; a JSON object is required")
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ApiError(400, f"the body is not valid JSON: {exc}", code="invalid_json") from exc


def _json_object(raw: bytes) -> dict[str, Any]:
    return require_object(parse_json(raw))


def require_object(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        kind = "null" if body is None else type(body).__name__
        raise invalid(None, f"the body must be a JSON object, got {kind}")
    return body


# ------------------------------------------------------------------- handlers by operationId
Handler = Callable[[Request], Awaitable[Response]]


async def create_model_resources(request: Request) -> Response:
    st = _state(request)
    owner = st.authenticate(request)
    body = parse_json(await read_body(request, st.max_body_bytes))
    return json_response(st.service.model_resources.create(owner, body))


async def get_model_resources(request: Request) -> Response:
    st = _state(request)
    owner = st.authenticate(request)
    resources_id = request.path_params["model_resources_id"]
    return json_response(st.service.model_resources.get(owner, resources_id))


def _query(request: Request, operation_id: str, name: str) -> Any:
    """One query parameter, validated and coerced as the spec declares it (None if absent)."""
    return validate_parameter(operation_id, name, request.query_params.getlist(name) or None)


async def list_model_resources(request: Request) -> Response:
    st = _state(request)
    owner = st.authenticate(request)
    op = "listModelResources"
    statuses = _query(request, op, "status")
    return json_response(
        st.service.model_resources.list_page(
            owner,
            _query(request, op, "after"),
            _query(request, op, "limit"),
            [str(s) for s in statuses] if isinstance(statuses, list) else None,
            _query(request, op, "created_by"),
        )
    )


async def estimate_model_resources_cost(request: Request) -> Response:
    st = _state(request)
    st.authenticate(request)
    body = parse_json(await read_body(request, st.max_body_bytes))
    return json_response(st.service.model_resources.estimate_cost(body))


async def extend_model_resources_expiry(request: Request) -> Response:
    st = _state(request)
    owner = st.authenticate(request)
    body = parse_json(await read_body(request, st.max_body_bytes))
    resources_id = request.path_params["model_resources_id"]
    return json_response(st.service.model_resources.extend_expiry(owner, resources_id, body))


async def stop_model_resources(request: Request) -> Response:
    st = _state(request)
    owner = st.authenticate(request)
    force = _query(request, "stopModelResources", "force")
    body = parse_json(await read_body(request, st.max_body_bytes), allow_empty=True)
    if body is not None and body != {}:
        require_object(body)
    resources_id = request.path_params["model_resources_id"]
    stopped = st.service.model_resources.stop(owner, resources_id, force is True)
    st.worker.wake()
    return json_response(stopped)


async def get_supported_models(request: Request) -> Response:
    _state(request).authenticate(request)
    return json_response(supported_models_body())


async def start_training_session(request: Request) -> Response:
    st = _state(request)
    owner = st.authenticate(request)
    body = parse_json(await read_body(request, st.max_body_bytes))
    return json_response(st.service.start_session(owner, body))


async def list_training_sessions(request: Request) -> Response:
    st = _state(request)
    owner = st.authenticate(request)
    query = request.query_params
    op = "listTrainingSessions"
    after = validate_parameter(op, "after", query.getlist("after") or None)
    limit = validate_parameter(op, "limit", query.getlist("limit") or None)
    statuses = validate_parameter(op, "status", query.getlist("status") or None)
    created_by = validate_parameter(op, "created_by", query.getlist("created_by") or None)
    resources_id = validate_parameter(
        op, "model_resources_id", query.getlist("model_resources_id") or None
    )
    assert isinstance(limit, int)  # the spec gives it a default
    return json_response(
        st.service.list_sessions(
            owner,
            after if isinstance(after, str) else None,
            limit,
            [str(s) for s in statuses] if isinstance(statuses, list) else None,
            created_by=created_by if isinstance(created_by, str) else None,
            model_resources_id=resources_id if isinstance(resources_id, str) else None,
        )
    )


async def get_training_session(request: Request) -> Response:
    st = _state(request)
    owner = st.authenticate(request)
    return json_response(st.service.get_session(owner, request.path_params["session_id"]))


async def update_training_session(request: Request) -> Response:
    st = _state(request)
    owner = st.authenticate(request)
    body = parse_json(await read_body(request, st.max_body_bytes))
    session_id = request.path_params["session_id"]
    return json_response(st.service.update_session(owner, session_id, body))


async def stop_training_session(request: Request) -> Response:
    st = _state(request)
    owner = st.authenticate(request)
    # No body is defined; the official SDK sends none (with a JSON content type). Accept either.
    body = parse_json(await read_body(request, st.max_body_bytes), allow_empty=True)
    if body is not None and body != {}:
        require_object(body)
    return json_response(st.service.stop_session(owner, request.path_params["session_id"]))


def submit_handler(name: str) -> Handler:
    """The POST of an operation kind: validate, store PENDING, enqueue (or replay)."""

    async def submit_operation(request: Request) -> Response:
        arrived_at = time.time()
        kind = kind_named(name)
        st = _state(request)
        owner = st.authenticate(request)
        session = st.service.check_session(owner, request.path_params["session_id"])
        key = validate_parameter(
            kind.submit_operation_id,
            "Idempotency-Key",
            request.headers.getlist("idempotency-key") or None,
        )
        assert isinstance(key, str)
        raw = await read_body(request, st.max_body_bytes)

        def submit() -> bytes:
            body: DecodedBody | None = None
            if kind.validate is None:  # no body defined: none, or any JSON object, is ignored
                ignored = parse_json(raw, allow_empty=True)
                if ignored is not None:
                    require_object(ignored)
            else:
                body = decode_body(raw, _json_object, fast=kind.fast_decode)
            return st.service.submit_operation(kind, owner, session, key, body, arrived_at)

        if len(raw) > THREADPOOL_BODY_BYTES:
            return json_response(await run_in_threadpool(submit))
        return json_response(submit())

    return submit_operation


def get_handler(name: str) -> Handler:
    """The GET of an operation of kind `name` (404 for another kind's or another key's one)."""

    async def get_operation(request: Request) -> Response:
        st = _state(request)
        owner = st.authenticate(request)
        params = request.path_params
        return json_response(
            st.service.get_operation(name, owner, params["session_id"], params["operation_id"])
        )

    return get_operation


async def create_payload_upload_url(request: Request) -> Response:
    st = _state(request)
    owner = st.authenticate(request)
    # No body is defined; whatever comes is ignored.
    await read_body(request, st.max_body_bytes, json_only=False)
    session_id = request.path_params["session_id"]
    return json_response(st.service.create_upload_url(owner, session_id, str(request.base_url)))


async def create_payload_download_url(request: Request) -> Response:
    st = _state(request)
    owner = st.authenticate(request)
    await read_body(request, st.max_body_bytes, json_only=False)
    params = request.path_params
    return json_response(
        st.service.create_download_url(
            owner, params["session_id"], params["payload_id"], str(request.base_url)
        )
    )


async def list_checkpoints(request: Request) -> Response:
    st = _state(request)
    owner = st.authenticate(request)
    op = "listCheckpoints"
    return json_response(
        st.service.checkpoints.list_page(
            owner,
            _query(request, op, "after"),
            _query(request, op, "limit"),
            base_model=_query(request, op, "base_model"),
            session_id=_query(request, op, "session_id"),
            type=_query(request, op, "type"),
        )
    )


async def get_checkpoint(request: Request) -> Response:
    st = _state(request)
    owner = st.authenticate(request)
    return json_response(st.service.checkpoints.get(owner, request.path_params["checkpoint_id"]))


async def download_checkpoint(request: Request) -> Response:
    st = _state(request)
    owner = st.authenticate(request)
    variant = _query(request, "downloadCheckpoint", "variant")
    checkpoint_id = request.path_params["checkpoint_id"]
    return json_response(
        st.service.checkpoints.download(owner, checkpoint_id, variant, str(request.base_url))
    )


HANDLERS: dict[str, Handler] = {
    "createModelResources": create_model_resources,
    "getModelResources": get_model_resources,
    "listModelResources": list_model_resources,
    "estimateModelResourcesCost": estimate_model_resources_cost,
    "extendModelResourcesExpiry": extend_model_resources_expiry,
    "stopModelResources": stop_model_resources,
    "getSupportedModels": get_supported_models,
    "startTrainingSession": start_training_session,
    "listTrainingSessions": list_training_sessions,
    "getTrainingSession": get_training_session,
    "updateTrainingSession": update_training_session,
    "stopTrainingSession": stop_training_session,
    "listCheckpoints": list_checkpoints,
    "getCheckpoint": get_checkpoint,
    "downloadCheckpoint": download_checkpoint,
    "createPayloadUploadUrl": create_payload_upload_url,
    "createPayloadDownloadUrl": create_payload_download_url,
}


def _handler(operation_id: str) -> Handler | None:
    """The handler of a spec operation: one of HANDLERS, or the POST/GET of a registered kind."""
    for name, kind in KINDS.items():
        if operation_id == kind.submit_operation_id:
            return submit_handler(name)
        if operation_id == kind.get_operation_id:
            return get_handler(name)
    return HANDLERS.get(operation_id)


# --------------------------------------------------------------------------- out-of-spec routes
async def serve_spec(request: Request) -> Response:
    return Response(spec_bytes(), media_type="application/yaml")


async def healthz(request: Request) -> Response:
    return json_response({"status": "ok"})


async def emulator_stats(request: Request) -> Response:
    st = _state(request)
    owner = st.authenticate(request)
    body: dict[str, Any] = dict(st.stats.snapshot(owner))
    body["sessions"] = st.service.session_stats(owner)
    body["queued_operations"] = st.worker.pending()
    return json_response(body)


async def emulator_operation(request: Request) -> Response:
    """When one of the caller's operations arrived and finished (Unix seconds, server clock)."""
    st = _state(request)
    owner = st.authenticate(request)
    operation_id = request.path_params["operation_id"]
    row = st.store.find_operation(owner, operation_id)
    if row is None:
        raise not_found("operation", "operation_id", operation_id)
    return json_response(
        {
            "id": row.id,
            "session_id": row.session_id,
            "kind": row.kind,
            "status": row.status,
            "submitted_at": row.submitted_at,
            "finished_at": row.finished_at,
        }
    )


async def emulator_faults(request: Request) -> Response:
    st = _state(request)
    owner = st.authenticate(request)
    if request.method == "DELETE":
        return json_response({"cleared": st.faults.clear(owner)})
    if request.method == "GET":
        return json_response({"faults": st.faults.armed(owner)})
    body = parse_json(await read_body(request, st.max_body_bytes))
    fault = parse_fault(body, _api_route_keys(request.app.routes))
    st.faults.arm(owner, fault)
    return json_response({"fault_id": fault.id})


async def presigned_payload(request: Request) -> Response:
    """`PUT` (upload a request body) or `GET` (download) a payload by its presigned URL: the
    `token` query parameter is the credential, and no Authorization header is needed."""
    st = _state(request)
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
    data = _state(request).service.checkpoints.file(
        params["checkpoint_id"], params["variant"], params["filename"],
        request.query_params.get("token"),
    )  # fmt: skip
    media = JSON if params["filename"].endswith(".json") else "application/octet-stream"
    return Response(data, media_type=media)


async def emulator_clock(request: Request) -> Response:
    """`GET`: the emulator clock. `POST {"advance_seconds": N}`: move it N seconds forward (to
    test expiry without waiting), then apply expiry."""
    st = _state(request)
    st.authenticate(request)
    if request.method == "POST":
        body = require_object(parse_json(await read_body(request, st.max_body_bytes)))
        seconds = body.get("advance_seconds")
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            raise invalid("advance_seconds", "must be a number of seconds")
        st.service.clock.advance(float(seconds))
        st.expire_idle()
    return json_response({"now": st.service.clock.now()})


def _api_route_keys(routes: list[BaseRoute]) -> set[str]:
    keys: set[str] = set()
    for route in routes:
        if isinstance(route, Route) and route.path.startswith(API_PREFIX + "/"):
            keys.update(f"{m} {route.path}" for m in route.methods or () if m != "HEAD")
    return keys


def build_routes() -> list[BaseRoute]:
    """One Route per spec path (under /v1) serving the spec's methods, plus the extra routes."""
    routes: list[BaseRoute] = []
    for path, item in load_spec()["paths"].items():
        by_method: dict[str, tuple[str, Handler]] = {}
        for method, operation in item.items():
            if not isinstance(operation, dict) or "operationId" not in operation:
                continue
            handler = _handler(operation["operationId"])
            if handler is None:
                raise RuntimeError(f"the spec's {operation['operationId']} has no emulator handler")
            by_method[method.upper()] = operation["operationId"], handler
        routes.append(Route(API_PREFIX + path, _dispatch(by_method), methods=list(by_method)))
    routes += [
        Route("/openapi.yaml", serve_spec, methods=["GET"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/_emulator/stats", emulator_stats, methods=["GET"]),
        Route("/_emulator/operations/{operation_id}", emulator_operation, methods=["GET"]),
        Route("/_emulator/faults", emulator_faults, methods=["GET", "POST", "DELETE"]),
        Route(PAYLOAD_ROUTE, presigned_payload, methods=["GET", "PUT"]),
        Route(CHECKPOINT_FILE_ROUTE, presigned_checkpoint_file, methods=["GET"]),
        Route("/_emulator/clock", emulator_clock, methods=["GET", "POST"]),
    ]
    return routes


def _dispatch(by_method: dict[str, tuple[str, Handler]]) -> Handler:
    async def endpoint(request: Request) -> Response:
        operation_id, handler = by_method[request.method]
        request.scope[OPERATION_ID_SCOPE_KEY] = operation_id  # for the error mapping
        return await handler(request)

    return endpoint


# --------------------------------------------------------------------------- errors
async def _api_error(request: Request, exc: Exception) -> Response:
    """An `ApiError` as `ErrorData`. A refusal whose code did not say where its rule comes from
    takes it from the operation's `x-rules`: when every entry answered with that status is
    `x-source: emulator`, the message says the live API may differ."""
    assert isinstance(exc, ApiError)
    operation_id = request.scope.get(OPERATION_ID_SCOPE_KEY)
    unsourced = exc.emulator_rule is None and isinstance(operation_id, str) and exc.status < 500
    if unsourced and operation_rule_sources(str(operation_id), exc.status) == {EMULATOR_SOURCE}:
        exc.mark_emulator_rule()
    return error_response(exc)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    headers = dict(exc.headers or {})
    if exc.status_code == 404:
        error = ApiError(
            404, f"no route {request.method} {request.url.path}", type="not_found", code="no_route"
        )
    elif exc.status_code == 405:
        allow = headers.get("Allow", "")
        error = ApiError(
            405,
            f"method {request.method} is not allowed on {request.url.path}; allowed: {allow}",
            type="method_not_allowed",
            code="method_not_allowed",
        )
    else:
        error = ApiError(exc.status_code, str(exc.detail), type="http_error")
    error.headers.update(headers)
    return error_response(error)


async def _unexpected(request: Request, exc: Exception) -> Response:
    log.error("internal error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(
        ApiError(500, "internal emulator error (a bug; see the server log)", type="internal_error")
    )


# --------------------------------------------------------------------------- the app
class EmulatorApp(Starlette):
    """Starlette plus an outermost layer that counts requests and applies injected faults."""

    emulator: EmulatorState

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and _headers_too_large(scope):
            error = ApiError(
                431,
                f"the request headers are larger than this server accepts"
                f" ({MAX_HEADER_COUNT} headers, {MAX_HEADER_BYTES} bytes)",
                code="headers_too_large",
            )
            await error_response(error)(scope, receive, send)
            return
        if scope["type"] == "http":
            self.emulator.worker.ensure_started()
        if scope["type"] != "http" or not str(scope.get("path", "")).startswith(API_PREFIX + "/"):
            await super().__call__(scope, receive, send)
            return
        self.emulator.expire_idle()
        route_key = self._route_key(scope)
        owner = self.emulator.owner_of(_header(scope, b"authorization"))
        if route_key is not None and owner is not None:
            self.emulator.stats.count_request(owner, route_key)
        fault = self.emulator.faults.take(owner, route_key)
        if fault is None:
            await super().__call__(scope, receive, send)
        elif fault.kind in IMMEDIATE_KINDS:
            status, headers, body = immediate_error(fault)
            await Response(body, status_code=status, headers=headers)(scope, receive, send)
        elif fault.kind == "latency":
            await super().__call__(scope, receive, _delayed(send, fault.latency_ms / 1000.0))
        else:  # drop_after_commit
            await super().__call__(scope, receive, _swallow)
            await _drop_connection(send)

    def _route_key(self, scope: Scope) -> str | None:
        for route in self.router.routes:
            match, _ = route.matches(scope)
            if match != Match.NONE and isinstance(route, Route):
                return f"{scope['method']} {route.path}"
        return None


def _headers_too_large(scope: Scope) -> bool:
    headers = scope.get("headers", [])
    return len(headers) > MAX_HEADER_COUNT or (
        sum(len(k) + len(v) for k, v in headers) > MAX_HEADER_BYTES
    )


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def _delayed(send: Send, seconds: float) -> Send:
    async def delayed_send(message: Message) -> None:
        if message["type"] == "http.response.start":
            await asyncio.sleep(seconds)
        await send(message)

    return delayed_send


async def _swallow(message: Message) -> None:
    return None


async def _drop_connection(send: Send) -> None:
    """Close the connection without answering. Under uvicorn: close its transport; in-process
    (httpx.ASGITransport): raise the error httpx raises for a server that hung up."""
    cycle = getattr(send, "__self__", None)
    transport = getattr(cycle, "transport", None)
    if cycle is not None and transport is not None and hasattr(cycle, "disconnected"):
        cycle.disconnected = True  # uvicorn then sends nothing (no 500) for this request
        transport.close()
        return
    raise httpx.RemoteProtocolError("Server disconnected without sending a response.")


def create_app(
    api_keys: list[str] | None = None,
    seed: int = 0,
    op_latency_ms: int = 0,
    state_dir: str | Path | None = None,
    max_body_mb: float = 64,
) -> EmulatorApp:
    """The emulator as an ASGI app. The operation worker starts with the first request (or at
    lifespan startup) and stops at lifespan shutdown or `app.state.emulator.close()`."""
    state = EmulatorState(
        list(api_keys) if api_keys is not None else ["test-key"],
        seed,
        op_latency_ms,
        state_dir,
        max_body_mb,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        state.worker.ensure_started()
        try:
            yield
        finally:
            state.close()

    app = EmulatorApp(
        routes=build_routes(),
        exception_handlers={
            ApiError: _api_error,
            HTTPException: _http_error,
            Exception: _unexpected,
        },
        lifespan=lifespan,
    )
    app.router.redirect_slashes = False
    app.state.emulator = state
    app.emulator = state
    return app
