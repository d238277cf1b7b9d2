"""The app: Starlette routes built from the spec's paths (a spec operation without a handler is a
startup error), the routes outside the spec, the error mapping and the outer fault layer.

The jobs live in their own modules: `_auth.py` (API keys), `_http.py` (bodies, JSON, query
parameters), `_handlers.py` (one handler per spec operation), `_emulator_routes.py` (the
`/_emulator` routes), `_error_mapping.py` (exceptions to answers), `_middleware.py` (header limits,
request counts, injected faults), `_state.py` (what an app instance owns).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..base import load_spec, resolve_ref
from ..cost import Timing
from ._auth import owner_id
from ._emulator_routes import EMULATOR_ROUTES
from ._error_mapping import EXCEPTION_HANDLERS, OPERATION_ID_SCOPE_KEY
from ._handlers import Handler, handler_for
from ._http import API_PREFIX, refuse_undeclared_query
from ._middleware import EmulatorApp
from ._state import EmulatorState, state_of

__all__ = ["EmulatorApp", "EmulatorState", "build_routes", "create_app", "owner_id"]


def build_routes() -> list[BaseRoute]:
    """One Route per spec path (under /v1) serving the spec's methods, plus the extra routes."""
    routes: list[BaseRoute] = []
    for path, item in load_spec()["paths"].items():
        by_method: dict[str, tuple[str, Handler, frozenset[str]]] = {}
        for method, operation in item.items():
            if not isinstance(operation, dict) or "operationId" not in operation:
                continue
            handler = handler_for(operation["operationId"])
            if handler is None:
                raise RuntimeError(f"the spec's {operation['operationId']} has no emulator handler")
            declared = [*item.get("parameters", []), *operation.get("parameters", [])]
            query = frozenset(
                p["name"] for p in map(resolve_ref, declared) if p.get("in") == "query"
            )
            by_method[method.upper()] = operation["operationId"], handler, query
        routes.append(Route(API_PREFIX + path, _dispatch(by_method), methods=list(by_method)))
    return [*routes, *EMULATOR_ROUTES]


def _dispatch(by_method: dict[str, tuple[str, Handler, frozenset[str]]]) -> Handler:
    async def endpoint(request: Request) -> Response:
        operation_id, handler, query = by_method[request.method]
        request.scope[OPERATION_ID_SCOPE_KEY] = operation_id  # for the error mapping
        if not query.issuperset(request.query_params.keys()):
            state_of(request).authenticate(request)  # a 401 comes first
            refuse_undeclared_query(operation_id, query, request.query_params.keys())
        return await handler(request)

    return endpoint


def create_app(
    api_keys: list[str] | None = None,
    seed: int = 0,
    op_latency_ms: int = 0,
    state_dir: str | Path | None = None,
    max_body_mb: float = 64,
    timing: Timing | str | None = None,
) -> EmulatorApp:
    """The emulator as an ASGI app. The operation worker starts with the first request (or at
    lifespan startup) and stops at lifespan shutdown or `app.state.emulator.close()`.
    `timing`: `"realistic"`, `"none"` or `"fixed MS"` (`_timing.py`); without it,
    `op_latency_ms` (`fixed`, 0 by default)."""
    if isinstance(timing, str):
        timing = Timing.parse(timing)
    state = EmulatorState(
        list(api_keys) if api_keys is not None else ["test-key"],
        seed,
        timing or Timing("fixed", op_latency_ms),
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
        exception_handlers=dict(EXCEPTION_HANDLERS),
        lifespan=lifespan,
    )
    app.router.redirect_slashes = False
    app.state.emulator = state
    app.emulator = state
    return app
