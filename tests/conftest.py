"""Shared fixtures: the emulator in-process (`emulator_app`, `emulator_client`) and over loopback
(`live_emulator`), plus factories for non-default options.

    def test_x(emulator_client): emulator_client.get("/v1/rl/supported-models")  # in-process
    def test_y(live_emulator): live_emulator.base_url       # "http://127.0.0.1:PORT" (no /v1)

Every app gets the keys `EMULATOR_KEY` ("test-key") and `OTHER_KEY` ("other-key").
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ci_policy import IN_CI
from emulator_harness import (
    DEFAULT_KEYS,
    EMULATOR_KEY,
    OTHER_KEY,
    LiveEmulator,
    emulator_test_client,
    start_live_emulator,
)
from together_rl_emulator import EmulatorApp, create_app

__all__ = ["EMULATOR_KEY", "OTHER_KEY", "LiveEmulator", "emulator_test_client"]


@pytest.fixture
def emulator_app_factory() -> Iterator[Callable[..., EmulatorApp]]:
    """`factory(**create_app_kwargs)`; keys default to test-key and other-key; closed after."""
    apps: list[EmulatorApp] = []

    def make(**kwargs: Any) -> EmulatorApp:
        kwargs.setdefault("api_keys", list(DEFAULT_KEYS))
        app = create_app(**kwargs)
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.emulator.close()


@pytest.fixture
def emulator_app(emulator_app_factory: Callable[..., EmulatorApp]) -> EmulatorApp:
    """A fresh in-memory emulator app (seed 0, no op latency)."""
    return emulator_app_factory()


@pytest.fixture
def emulator_client(emulator_app: EmulatorApp) -> Iterator[httpx.Client]:
    """A sync httpx.Client (Starlette TestClient) on `emulator_app` in-process, authenticated
    with `EMULATOR_KEY`. Request `/v1/rl/...`; the worker thread starts with the first request."""
    with emulator_test_client(emulator_app) as client:
        yield client


@pytest.fixture
def live_emulator_factory() -> Iterator[Callable[..., LiveEmulator]]:
    """`factory(**create_app_kwargs)` -> a started `LiveEmulator`, stopped after the test."""
    started: list[LiveEmulator] = []

    def make(**kwargs: Any) -> LiveEmulator:
        kwargs.setdefault("api_keys", list(DEFAULT_KEYS))
        live = start_live_emulator(create_app(**kwargs), api_key=kwargs["api_keys"][0])
        started.append(live)
        return live

    yield make
    for live in started:
        live.stop()


@pytest.fixture
def live_emulator(live_emulator_factory: Callable[..., LiveEmulator]) -> LiveEmulator:
    """The emulator over loopback (in-memory state, seed 0, no latency)."""
    return live_emulator_factory()


@pytest.fixture
def state_dir(tmp_path: Path) -> Path:
    path = tmp_path / "emulator-state"
    path.mkdir()
    return path


# ------------------------------------------------------------------------- what ran, and how


def _selection(config: pytest.Config) -> str:
    expression = config.getoption("markexpr") or ""
    return f"-m {expression!r}" if expression else "every marker (slow included)"


def pytest_report_header(config: pytest.Config) -> list[str]:
    policy = "missing tools FAIL (CI=true)" if IN_CI else "missing tools are skipped (not CI)"
    return [f"together-rl: {policy}; selected: {_selection(config)}"]


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    stats = terminalreporter.stats
    counts = ", ".join(
        f"{len(stats.get(key, []))} {key}"
        for key in ("passed", "failed", "error", "skipped", "deselected")
        if stats.get(key)
    )
    mode = "CI=true" if IN_CI else "local"
    terminalreporter.write_line(f"together-rl ({mode}): {counts}; selected: {_selection(config)}")
