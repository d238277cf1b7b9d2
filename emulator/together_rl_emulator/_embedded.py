"""Serve the emulator (or any ASGI app) on a free loopback port in a thread of this process:
what `--embedded` examples, the contract suite and the reliability proofs run against."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import uvicorn

from ._app import create_app

__all__ = ["START_TIMEOUT_S", "ThreadServer", "serve_emulator", "serve_in_thread"]

START_TIMEOUT_S = 60.0


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
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
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
