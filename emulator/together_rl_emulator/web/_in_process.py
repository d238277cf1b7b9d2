"""httpx transports that serve the emulator (or any ASGI app) in this process, with the
`drop_after_commit` fault's extension (`_drop.py`): `AsyncInProcessTransport` wraps
`httpx.ASGITransport`; `InProcessTransport` is the same for a sync `httpx.Client`, run in an event
loop of its own (anyio's blocking portal, one a request, as Starlette's TestClient does).

A dropped connection is here what it is on a socket: the app's drop event ends the request (its
`send` raises `ConnectionDropped`, an OSError, as ASGI says a send on a closed connection does),
and the transport raises what httpx raises for a server that hung up without an answer,
`httpx.RemoteProtocolError`."""

from __future__ import annotations

import anyio.from_thread
import httpx
from starlette.types import ASGIApp, Receive

from ._drop import ConnectionDropped, serve_with_drop

__all__ = ["HUNG_UP", "AsyncInProcessTransport", "InProcessTransport"]

#: httpx's message for a server that closed the connection without answering.
HUNG_UP = "Server disconnected without sending a response."


async def _hang_up(receive: Receive) -> None:
    raise ConnectionDropped("the app dropped the connection")


class AsyncInProcessTransport(httpx.AsyncBaseTransport):
    """`httpx.ASGITransport(app=app)` that can drop a connection."""

    def __init__(self, app: ASGIApp) -> None:
        self._inner = httpx.ASGITransport(app=serve_with_drop(app, lambda: _hang_up))

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return await self._inner.handle_async_request(request)
        except ConnectionDropped as dropped:
            raise httpx.RemoteProtocolError(HUNG_UP, request=request) from dropped

    async def aclose(self) -> None:
        await self._inner.aclose()


class InProcessTransport(httpx.BaseTransport):
    """`AsyncInProcessTransport` for a sync client; answers are read whole."""

    def __init__(self, app: ASGIApp) -> None:
        self._async = AsyncInProcessTransport(app)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()  # its stream is then bytes, which an async transport reads too
        with anyio.from_thread.start_blocking_portal() as portal:
            return portal.call(self._send, request)

    async def _send(self, request: httpx.Request) -> httpx.Response:
        response = await self._async.handle_async_request(request)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            content=await response.aread(),
            extensions=response.extensions,
        )
