"""Serve the emulator (or any ASGI app) with uvicorn: on a free loopback port in a thread of this
process (what `--embedded` examples, the contract suite and the reliability proofs run against),
or from the command line (`__main__.py`); both through `uvicorn_config`, which adds the
`drop_after_commit` fault's extension (`_drop.py`).

The extension needs the connection's transport, which ASGI does not hand an app. uvicorn takes
the HTTP protocol class as a setting (`Config(http=...)`, an `asyncio.Protocol` class); ours is
uvicorn's HTTP/1.1 protocol plus two `asyncio.Protocol` callbacks: `connection_made` keeps the
transport asyncio hands it, and `data_received` (where uvicorn parses a request and starts its
task) makes it the current one in a context variable, which a task started there inherits
(asyncio copies the current context into a new task). The ASGI layer in front of the app
(`serve_with_drop`) reads it, advertises the extension, and on the app's drop event closes that
transport, then waits for the `http.disconnect` uvicorn reports once the connection is lost (so
uvicorn neither answers 500 nor logs an error)."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import uvicorn
from starlette.types import ASGIApp, Receive
from uvicorn.protocols.http.h11_impl import H11Protocol

from ._app import create_app
from ._drop import Drop, serve_with_drop

__all__ = [
    "START_TIMEOUT_S",
    "ThreadServer",
    "serve_emulator",
    "serve_in_thread",
    "uvicorn_config",
]

START_TIMEOUT_S = 60.0

# The transport of the connection whose bytes uvicorn is handling (see the module docstring).
_CONNECTION: contextvars.ContextVar[asyncio.Transport] = contextvars.ContextVar("connection")


class _DroppableH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol; a request's task knows its connection's transport."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._drop_transport = transport
        super().connection_made(transport)

    def data_received(self, data: bytes) -> None:
        token = _CONNECTION.set(self._drop_transport)
        try:
            super().data_received(data)
        finally:
            _CONNECTION.reset(token)


def _drop_for() -> Drop | None:
    transport = _CONNECTION.get(None)
    if transport is None:
        return None

    async def drop(receive: Receive) -> None:
        transport.close()
        while (await receive())["type"] != "http.disconnect":
            pass  # the rest of a body the app did not read

    return drop


def uvicorn_config(app: ASGIApp, host: str, port: int, log_level: str) -> uvicorn.Config:
    """The uvicorn settings this package serves with: `app` with the drop extension."""
    return uvicorn.Config(
        serve_with_drop(app, _drop_for),
        host=host,
        port=port,
        log_level=log_level,
        lifespan="on",
        http=_DroppableH11Protocol,
    )


@dataclass
class ThreadServer:
    """An ASGI app served by uvicorn in a daemon thread; `stop()` ends it (then `on_stop`)."""

    app: Any
    base_url: str
    server: uvicorn.Server
    thread: threading.Thread
    on_stop: Callable[[], None] | None = None

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)
        if self.on_stop is not None:
            self.on_stop()

    def __enter__(self) -> ThreadServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def serve_in_thread(app: Any, on_stop: Callable[[], None] | None = None) -> ThreadServer:
    """Serve `app` on a free loopback port; returns once it accepts connections."""
    server = uvicorn.Server(uvicorn_config(app, "127.0.0.1", 0, "warning"))
    thread = threading.Thread(target=server.run, name="emulator-thread", daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the in-thread emulator did not start")
        time.sleep(0.005)
    port = server.servers[0].sockets[0].getsockname()[1]
    return ThreadServer(app, f"http://127.0.0.1:{port}", server, thread, on_stop)


def serve_emulator(**create_app_kwargs: Any) -> ThreadServer:
    """A fresh emulator (`create_app(**create_app_kwargs)`) served in a thread; stopping it also
    stops the emulator's worker. Usable as a context manager."""
    app = create_app(**create_app_kwargs)
    return serve_in_thread(app, on_stop=app.emulator.close)
