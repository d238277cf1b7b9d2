"""How exceptions become answers: an `ApiError` as `ErrorData` (with the emulator-rule note its
operation's `x-rules` call for), Starlette's 404/405 as JSON, anything else a logged 500."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from ..base import EMULATOR_SOURCE, ApiError, operation_rule_sources
from ._http import error_response

__all__ = ["EXCEPTION_HANDLERS", "OPERATION_ID_SCOPE_KEY"]

log = logging.getLogger("together_rl_emulator")

# Where a request's scope records the spec operation it was routed to.
OPERATION_ID_SCOPE_KEY = "together_rl_emulator.operation_id"


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


EXCEPTION_HANDLERS: dict[type[Exception], Callable[[Request, Exception], Awaitable[Response]]] = {
    ApiError: _api_error,
    HTTPException: _http_error,
    Exception: _unexpected,
}
