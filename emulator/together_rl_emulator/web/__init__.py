"""The HTTP layer: the app, its routes and handlers, middleware, error mapping, auth,
fault injection and the servers (uvicorn in a thread, in-process transports)."""

from __future__ import annotations

from ._app import (
    EmulatorApp,
    EmulatorState,
    create_app,
    owner_id,
)
from ._embedded import (
    ThreadServer,
    serve_emulator,
    serve_in_thread,
    uvicorn_config,
)
from ._in_process import (
    AsyncInProcessTransport,
    InProcessTransport,
)

__all__ = [
    "AsyncInProcessTransport",
    "EmulatorApp",
    "EmulatorState",
    "InProcessTransport",
    "ThreadServer",
    "create_app",
    "owner_id",
    "serve_emulator",
    "serve_in_thread",
    "uvicorn_config",
]
