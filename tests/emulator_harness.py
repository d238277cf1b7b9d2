"""Helpers to run the emulator in tests: in-process clients, a uvicorn server on loopback, and
the one place for what every test folder shares (the test key, the terminal statuses, the polling
loop; the last two come from the contract suite, which uses them too).

Imported by tests/conftest.py (fixtures) and by test modules that need the classes themselves.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

with warnings.catch_warnings():  # starlette 1.10 suggests httpx2; we stay on httpx (pinned)
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from together_rl_contract_tests._http import (
    COMPLETED,
    FAILED,
    TERMINAL_STATUSES,
    wait_until_terminal,
)
from together_rl_emulator import EmulatorApp, ThreadServer, serve_in_thread

__all__ = [
    "COMPLETED",
    "DEFAULT_KEYS",
    "EMULATOR_KEY",
    "FAILED",
    "OTHER_KEY",
    "TERMINAL_STATUSES",
    "LiveEmulator",
    "emulator_test_client",
    "start_live_emulator",
    "wait_until_terminal",
]

EMULATOR_KEY = "test-key"  # the one test key of the suite
OTHER_KEY = "other-key"
DEFAULT_KEYS = [EMULATOR_KEY, OTHER_KEY]


@dataclass
class LiveEmulator:
    """A uvicorn-served emulator on 127.0.0.1. `base_url` has no `/v1` (as the SDK wants it)."""

    base_url: str
    api_key: str
    app: EmulatorApp
    other_key: str = OTHER_KEY
    _server: ThreadServer | None = field(default=None, repr=False)

    @property
    def api_url(self) -> str:
        return self.base_url + "/v1"

    def headers(self, key: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {key or self.api_key}"}

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()  # also closes the app (its worker and store)


def start_live_emulator(app: EmulatorApp, api_key: str = EMULATOR_KEY) -> LiveEmulator:
    """Serve `app` with uvicorn in a daemon thread on a free loopback port; returns when ready."""
    server = serve_in_thread(app, on_stop=app.emulator.close)
    return LiveEmulator(base_url=server.base_url, api_key=api_key, app=app, _server=server)


def emulator_test_client(app: EmulatorApp, api_key: str | None = EMULATOR_KEY) -> TestClient:
    """A synchronous in-process client (an httpx.Client) whose base URL is the server root."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    return TestClient(app, base_url="http://emulator.test", headers=headers)
