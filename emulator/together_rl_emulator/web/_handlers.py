"""The handler of each spec operation, by `operationId`: authenticate, read the body or the
parameters, call the service, answer JSON. Operation kinds get theirs from the registry."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from ..base import PageRequest, supported_models_body
from ..checking import (
    TYPED_DECODE_MIN_BYTES,
    DecodedBody,
    RawBody,
    decode_body,
    validate_parameter,
)
from ..cost import estimate_rollouts
from ..service import KINDS, kind_named
from ._http import (
    ignore_optional_body,
    json_object,
    json_response,
    parse_json,
    query_parameter,
    read_body,
)
from ._state import state_of

__all__ = ["HANDLERS", "Handler", "handler_for"]

# Bodies larger than this are decoded and validated in a worker thread, off the event loop.
THREADPOOL_BODY_BYTES = 256 * 1024

# Bodies larger than this are checked one at a time (each costs about 15 times its size in
# memory at its peak); the others wait in their threads, the event loop serves everyone else.
LARGE_BODY_BYTES = 8 * 1024 * 1024
_LARGE_BODY_SLOT = threading.BoundedSemaphore(1)

Handler = Callable[[Request], Awaitable[Response]]


def one_large_body_at_a_time(check: Callable[[], bytes]) -> bytes:
    """Run `check` alone among large bodies, with the cyclic garbage collector paused: decoding
    a batch makes millions of containers, and each full collection the allocations trigger
    walks all of them (0.2-0.3 s holding the GIL, many times per body). Reference counting
    still frees everything; the collector resumes when the check ends."""
    with _LARGE_BODY_SLOT:
        paused = gc.isenabled()
        gc.disable()
        try:
            return check()
        finally:
            if paused:
                gc.enable()


def _listing(
    request: Request, operation_id: str, *names: str
) -> tuple[PageRequest, dict[str, Any]]:
    """A list operation's page and filters from its query parameters `names`, validated and
    coerced as the spec declares them, in this order (a 400 names the first bad one): `after`
    and `limit` make the page, the others are the filters."""
    values = {name: query_parameter(request, operation_id, name) for name in names}
    return PageRequest(values.pop("after"), values.pop("limit")), values


async def create_model_resources(request: Request) -> Response:
    st = state_of(request)
    owner = st.authenticate(request)
    body = parse_json(await read_body(request, st.max_body_bytes))
    return json_response(st.service.model_resources.create(owner, body))


async def get_model_resources(request: Request) -> Response:
    st = state_of(request)
    owner = st.authenticate(request)
    resources_id = request.path_params["model_resources_id"]
    return json_response(st.service.model_resources.get(owner, resources_id))


async def list_model_resources(request: Request) -> Response:
    st = state_of(request)
    owner = st.authenticate(request)
    page, filters = _listing(
        request, "listModelResources", "status", "after", "limit", "created_by"
    )
    return json_response(st.service.model_resources.list_page(owner, page, **filters))


async def estimate_model_resources_cost(request: Request) -> Response:
    st = state_of(request)
    st.authenticate(request)
    body = parse_json(await read_body(request, st.max_body_bytes))
    return json_response(st.service.model_resources.estimate_cost(body))


async def extend_model_resources_expiry(request: Request) -> Response:
    st = state_of(request)
    owner = st.authenticate(request)
    body = parse_json(await read_body(request, st.max_body_bytes))
    resources_id = request.path_params["model_resources_id"]
    return json_response(st.service.model_resources.extend_expiry(owner, resources_id, body))


async def stop_model_resources(request: Request) -> Response:
    st = state_of(request)
    owner = st.authenticate(request)
    force = query_parameter(request, "stopModelResources", "force")
    ignore_optional_body(await read_body(request, st.max_body_bytes))
    resources_id = request.path_params["model_resources_id"]
    stopped = st.service.model_resources.stop(owner, resources_id, force is True)
    st.worker.wake()
    return json_response(stopped)


async def estimate_rollouts_handler(request: Request) -> Response:
    st = state_of(request)
    st.authenticate(request)
    return json_response(estimate_rollouts(parse_json(await read_body(request, st.max_body_bytes))))


async def get_supported_models(request: Request) -> Response:
    state_of(request).authenticate(request)
    return json_response(supported_models_body())


async def start_training_session(request: Request) -> Response:
    st = state_of(request)
    owner = st.authenticate(request)
    body = parse_json(await read_body(request, st.max_body_bytes))
    # Off the event loop: with realistic timing the session's model is loaded here.
    return json_response(await run_in_threadpool(st.service.sessions.start, owner, body))


async def list_training_sessions(request: Request) -> Response:
    st = state_of(request)
    owner = st.authenticate(request)
    page, filters = _listing(
        request,
        "listTrainingSessions",
        "status",
        "after",
        "limit",
        "created_by",
        "model_resources_id",
    )
    return json_response(st.service.sessions.list_page(owner, page, **filters))


async def get_training_session(request: Request) -> Response:
    st = state_of(request)
    owner = st.authenticate(request)
    return json_response(st.service.sessions.get(owner, request.path_params["session_id"]))


async def update_training_session(request: Request) -> Response:
    st = state_of(request)
    owner = st.authenticate(request)
    body = parse_json(await read_body(request, st.max_body_bytes))
    session_id = request.path_params["session_id"]
    return json_response(st.service.sessions.update(owner, session_id, body))


async def stop_training_session(request: Request) -> Response:
    st = state_of(request)
    owner = st.authenticate(request)
    ignore_optional_body(await read_body(request, st.max_body_bytes))
    return json_response(st.service.sessions.stop(owner, request.path_params["session_id"]))


def submit_handler(name: str) -> Handler:
    """The POST of an operation kind: validate, store PENDING, enqueue (or replay)."""

    async def submit_operation(request: Request) -> Response:
        arrived_at = time.time()
        kind = kind_named(name)
        st = state_of(request)
        owner = st.authenticate(request)
        session = st.service.sessions.check(owner, request.path_params["session_id"])
        key = validate_parameter(
            kind.submit_operation_id,
            "Idempotency-Key",
            request.headers.getlist("idempotency-key") or None,
        )
        assert isinstance(key, str)
        raw = await read_body(request, st.max_body_bytes)

        def submit() -> bytes:
            body: DecodedBody | RawBody | None = None
            if kind.validate is None:  # the spec defines no body
                ignore_optional_body(raw)
            elif kind.typed is not None and len(raw) >= TYPED_DECODE_MIN_BYTES:
                body = RawBody(raw, json_object, fast=kind.fast_decode, typed=kind.typed)
            else:
                body = decode_body(raw, json_object, fast=kind.fast_decode)
            return st.service.submit_operation(kind, owner, session, key, body, arrived_at)

        if len(raw) > LARGE_BODY_BYTES:
            return json_response(await run_in_threadpool(one_large_body_at_a_time, submit))
        if len(raw) > THREADPOOL_BODY_BYTES:
            return json_response(await run_in_threadpool(submit))
        return json_response(submit())

    return submit_operation


def get_handler(name: str) -> Handler:
    """The GET of an operation of kind `name` (404 for another kind's or another key's one)."""

    async def get_operation(request: Request) -> Response:
        st = state_of(request)
        owner = st.authenticate(request)
        params = request.path_params
        return json_response(
            st.service.get_operation(name, owner, params["session_id"], params["operation_id"])
        )

    return get_operation


async def create_payload_upload_url(request: Request) -> Response:
    st = state_of(request)
    owner = st.authenticate(request)
    # No body is defined; whatever comes is ignored.
    await read_body(request, st.max_body_bytes, json_only=False)
    session_id = request.path_params["session_id"]
    return json_response(st.service.create_upload_url(owner, session_id, str(request.base_url)))


async def create_payload_download_url(request: Request) -> Response:
    st = state_of(request)
    owner = st.authenticate(request)
    await read_body(request, st.max_body_bytes, json_only=False)
    params = request.path_params
    return json_response(
        st.service.create_download_url(
            owner, params["session_id"], params["payload_id"], str(request.base_url)
        )
    )


async def list_checkpoints(request: Request) -> Response:
    st = state_of(request)
    owner = st.authenticate(request)
    page, filters = _listing(
        request, "listCheckpoints", "after", "limit", "base_model", "session_id", "type"
    )
    return json_response(st.service.checkpoints.list_page(owner, page, filters))


async def get_checkpoint(request: Request) -> Response:
    st = state_of(request)
    owner = st.authenticate(request)
    return json_response(st.service.checkpoints.get(owner, request.path_params["checkpoint_id"]))


async def download_checkpoint(request: Request) -> Response:
    st = state_of(request)
    owner = st.authenticate(request)
    variant = query_parameter(request, "downloadCheckpoint", "variant")
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
    "estimateRollouts": estimate_rollouts_handler,
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


def handler_for(operation_id: str) -> Handler | None:
    """The handler of a spec operation: one of HANDLERS, or the POST/GET of a registered kind."""
    for name, kind in KINDS.items():
        if operation_id == kind.submit_operation_id:
            return submit_handler(name)
        if operation_id == kind.get_operation_id:
            return get_handler(name)
    return HANDLERS.get(operation_id)
