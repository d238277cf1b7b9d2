"""The outermost layer of the app: request-header limits (431), the per-route request count,
and the faults a test armed (`/_emulator/faults`), applied before routing."""

from __future__ import annotations

import asyncio

from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Match, Route
from starlette.types import Message, Receive, Scope, Send

from ..base import ApiError
from ._drop import drop_connection
from ._faults import IMMEDIATE_KINDS, immediate_error
from ._http import API_PREFIX, error_response
from ._state import EmulatorState

__all__ = ["MAX_HEADER_BYTES", "MAX_HEADER_COUNT", "EmulatorApp"]

# Request header limits (431 beyond them), as common HTTP servers and proxies set them.
MAX_HEADER_COUNT = 100
MAX_HEADER_BYTES = 16 * 1024


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
            await drop_connection(scope, send)

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
