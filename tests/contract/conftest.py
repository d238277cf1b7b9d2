"""An in-process emulator (uvicorn in a thread, loopback) for the contract suite's own tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import pytest
from together_rl_contract_tests import Target
from together_rl_emulator import serve_in_thread

KEYS = ["contract-key-1", "contract-key-2"]


@contextmanager
def _serve(wrap: Callable[[Any], Any] | None = None) -> Iterator[Target]:
    from together_rl_emulator import create_app

    app = create_app(api_keys=list(KEYS), seed=0)
    server = serve_in_thread(wrap(app) if wrap else app, on_stop=app.emulator.close)
    try:
        yield Target(
            base_url=server.base_url, api_key=KEYS[0], second_api_key=KEYS[1], is_emulator=True
        )
    finally:
        server.stop()


@pytest.fixture
def serve_emulator() -> Callable[..., AbstractContextManager[Target]]:
    """``with serve_emulator(wrap) as target``: the emulator, optionally wrapped in middleware."""
    return _serve
