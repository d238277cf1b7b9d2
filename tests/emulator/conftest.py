"""Fixtures of the emulator tests (request bodies and polling helpers live in _emulator_bodies.py
and _operation_kind_bodies.py; the AdamW reference in _adamw_reference.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ci_policy import import_required
from emulator_harness import EMULATOR_KEY, LiveEmulator
from together_rl_contract_tests._emulator_process import EmulatorProcess
from together_rl_emulator import EmulatorApp, InProcessTransport

__all__ = ["SDK_VERSION"]

SDK_VERSION = "3.1.1"  # the official SDK the spec must accept (pinned in requirements.lock)


@pytest.fixture
def sdk(live_emulator: LiveEmulator) -> Iterator[Any]:
    """The official `together` SDK client on the live emulator (a failure under CI if missing)."""
    together = import_required("together", SDK_VERSION)
    client = together.Together(
        api_key=live_emulator.api_key, base_url=live_emulator.base_url, max_retries=2
    )
    yield client
    client.close()


@pytest.fixture
def transport_client(emulator_app: EmulatorApp) -> Iterator[httpx.Client]:
    """`emulator_client`, but through the package's own `InProcessTransport` (the in-process
    server that can drop a connection, as the `drop_after_commit` fault asks)."""
    with httpx.Client(
        transport=InProcessTransport(emulator_app),
        base_url="http://emulator.test",
        headers={"Authorization": f"Bearer {EMULATOR_KEY}"},
    ) as client:
        yield client


@pytest.fixture
def emulator_processes() -> Iterator[Callable[..., EmulatorProcess]]:
    """`start(state_dir, *args, api_key=EMULATOR_KEY, seed=0)`: `python -m together_rl_emulator`
    on that state dir (no --api-key when `api_key` is None), started; stopped after the test."""
    started: list[EmulatorProcess] = []

    def start(
        state_dir: Path, *args: str, api_key: str | None = EMULATOR_KEY, seed: int = 0
    ) -> EmulatorProcess:
        process = EmulatorProcess(
            api_keys=[] if api_key is None else [api_key],
            state_dir=state_dir,
            seed=seed,
            extra_args=args,
        )
        started.append(process)
        process.start()
        return process

    yield start
    for process in started:
        process.stop()
