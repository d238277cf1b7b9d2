"""A local Together RL training server: real state, real idempotency and real loss math.

    from together_rl_emulator import create_app
    app = create_app(api_keys=["test-key"], seed=0, op_latency_ms=0, state_dir=None, max_body_mb=64)

or served on a free loopback port in a thread of this process:

    with serve_emulator(api_keys=["test-key"]) as server:
        ...  # server.base_url

or in this process, through an httpx transport (`InProcessTransport`, `AsyncInProcessTransport`):

    httpx.Client(transport=InProcessTransport(app), base_url="http://emulator.test")

or from a shell: `together-rl-emulator --port 8765 --api-key KEY` (see docs/emulator.md).
"""

from __future__ import annotations

from .base import CATALOG, TINY_MODEL
from .web import (
    AsyncInProcessTransport,
    EmulatorApp,
    EmulatorState,
    InProcessTransport,
    ThreadServer,
    create_app,
    owner_id,
    serve_emulator,
    serve_in_thread,
)

__all__ = [
    "CATALOG",
    "TINY_MODEL",
    "AsyncInProcessTransport",
    "EmulatorApp",
    "EmulatorState",
    "InProcessTransport",
    "ThreadServer",
    "create_app",
    "owner_id",
    "serve_emulator",
    "serve_in_thread",
]
