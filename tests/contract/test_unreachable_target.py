"""A target the suite cannot check gives one line naming the cause and exit code 2, never a
conformance failure; a target lost midway is reported as interrupted; no output holds the key.

Every server here listens on loopback; the host that does not resolve is under ``.invalid``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from together_rl_contract_tests import SuiteOptions, Target, run_suite
from together_rl_contract_tests._cli import main
from together_rl_contract_tests._emulator_process import free_port
from together_rl_contract_tests._preflight import TargetUnavailable, preflight
from together_rl_contract_tests._results import FAILED, NO_ANSWER
from together_rl_emulator import serve_in_thread

from ._stub_server import KEY, http_server
from .conftest import KEYS

REPO = Path(__file__).resolve().parents[2]


def html_page(authorization: str) -> bytes:
    return f"<html><body>Welcome! ({authorization})</body></html>".encode()


def refusing_key(authorization: str) -> bytes:
    # Echoes the key, as some servers do: the suite must still never print it.
    message = f"invalid API key {authorization.removeprefix('Bearer ')}"
    return json.dumps({"error": {"message": message, "code": "unauthorized"}}).encode()


def run_cli(base_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["--base-url", base_url, "--api-key", KEY, "--report-dir", str(tmp_path)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def assert_not_run(code: int, output: str, tmp_path: Path, cause: str) -> None:
    assert code == 2
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1, output
    assert lines[0].startswith("conformance NOT RUN: ") and cause in lines[0], lines[0]
    report = (tmp_path / "conformance.md").read_text()
    junit = (tmp_path / "conformance.junit.xml").read_text()
    assert "**NOT RUN**" in report and cause in report
    assert 'failures="0"' in junit and "NOT RUN" in junit
    for text in (output, report, junit):
        assert KEY not in text
        assert "FAILED" not in text


@pytest.mark.parametrize(
    ("make_url", "cause"),
    [
        (lambda: f"http://127.0.0.1:{free_port()}", "connection refused by 127.0.0.1:"),
        (lambda: "http://conformance-target.invalid", "cannot resolve host"),
        (lambda: "ftp://127.0.0.1:9", "is not an http(s) URL"),
    ],
    ids=["closed-port", "host-does-not-resolve", "not-http"],
)
def test_unreachable_target_is_not_run(
    make_url: Callable[[], str], cause: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, output = run_cli(make_url(), tmp_path, capsys)
    assert_not_run(code, output, tmp_path, cause)


def test_server_answering_html_is_not_this_api(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with http_server(200, "text/html", html_page) as url:
        code, output = run_cli(url, tmp_path, capsys)
    assert_not_run(code, output, tmp_path, "not this API")
    assert "text/html, not JSON" in output


def test_tls_failure_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with http_server(200, "text/html", html_page) as url:  # plain HTTP behind an https:// URL
        code, output = run_cli(url.replace("http://", "https://"), tmp_path, capsys)
    assert_not_run(code, output, tmp_path, "TLS handshake with 127.0.0.1:")


def test_server_without_the_routes_is_not_this_api(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    not_found = json.dumps({"detail": "Not Found"}).encode()
    with http_server(404, "application/json", lambda _: not_found) as url:
        code, output = run_cli(url + "/v1", tmp_path, capsys)
    assert_not_run(code, output, tmp_path, "answered 404; give the server root without /v1")


@pytest.mark.parametrize("status", [401, 403])
def test_refused_key_is_named_masked(
    status: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with http_server(status, "application/json", refusing_key) as url:
        code, output = run_cli(url, tmp_path, capsys)
    assert_not_run(code, output, tmp_path, f"was refused: GET {url}/v1/rl/supported-models")
    assert f"...{KEY[-4:]} ({len(KEY)} characters)" in output
    assert f"answered {status}" in output


def test_silent_server_times_out() -> None:
    with socket.socket() as listener:  # accepts connections (backlog) and never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        target = Target(base_url=f"http://127.0.0.1:{port}", api_key=KEY)
        with pytest.raises(TargetUnavailable, match=r"no answer from .* within 0.3 s \(timeout\)"):
            preflight(target, timeout_s=0.3)


def test_missing_key_is_not_run(tmp_path: Path) -> None:
    suite = run_suite(
        Target(base_url="http://127.0.0.1:9", api_key=None), SuiteOptions(report_dir=tmp_path)
    )
    assert (suite.verdict, suite.exit_code) == ("NOT RUN", 2)
    assert "no API key" in suite.cause


def test_command_line_ends_with_one_line_and_exit_code_2(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "together_rl_contract_tests", "--base-url", "http://127.0.0.1:9",
         "--api-key", "x", "--report-dir", str(tmp_path)],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stdout == ""
    cause = "connection refused by 127.0.0.1:9: is the server running on that port?"
    assert result.stderr.strip().splitlines() == [f"conformance NOT RUN: {cause}"]


# ----------------------------------------------------------------------------- lost midway
class GoesAway:
    """ASGI middleware: the ``after``-th request stops the server (from another thread) and is
    answered only once the server no longer accepts connections, so no later request is ever
    answered, however fast the rest of the run would have been."""

    def __init__(self, app: Any, after: int) -> None:
        self.app, self.after, self.seen = app, after, 0
        self.stop: Callable[[], None] = lambda: None
        self.accepting: Callable[[], bool] = lambda: False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.seen += 1
            if self.seen == self.after:
                threading.Thread(target=self.stop, daemon=True).start()
                while self.accepting():
                    await asyncio.sleep(0.005)
        await self.app(scope, receive, send)


@contextmanager
def emulator_that_goes_away(after: int) -> Iterator[Target]:
    from together_rl_emulator import create_app

    app = create_app(api_keys=list(KEYS), seed=0)
    wrapper = GoesAway(app, after)
    server = serve_in_thread(wrapper, on_stop=app.emulator.close)
    wrapper.stop = server.stop
    wrapper.accepting = lambda: any(s.is_serving() for s in server.server.servers)
    try:
        yield Target(base_url=server.base_url, api_key=KEYS[0], is_emulator=True)
    finally:
        server.stop()


DURING_SCHEMATHESIS = SuiteOptions(
    phases=("examples", "fuzzing"), max_examples=3, scenario_modules=("test_lifecycle.py",)
)
DURING_SCENARIOS = SuiteOptions(
    schemathesis=False, scenario_modules=("test_lifecycle.py", "test_idempotency.py")
)


@pytest.mark.parametrize(
    ("after", "options"),
    [(40, DURING_SCHEMATHESIS), (30, DURING_SCENARIOS)],
    ids=["during-schemathesis", "during-scenario-tests"],
)
def test_target_lost_midway_is_interrupted_not_failed(
    after: int, options: SuiteOptions, tmp_path: Path
) -> None:
    options = dataclasses.replace(options, report_dir=tmp_path, progress=False)
    with emulator_that_goes_away(after) as target:
        suite = run_suite(target, options)
    failures = [f"{r.check}: {r.detail[:300]}" for r in suite.results if r.status == FAILED]
    assert not failures, failures
    assert (suite.verdict, suite.exit_code) == ("INTERRUPTED", 2)
    assert suite.lost is not None and "stopped answering" in suite.lost
    never = sum(1 for r in suite.results if r.status == NO_ANSWER)
    assert never == suite.no_answer > 0
    assert f"{never} checks never got an answer (not counted as failed)" in suite.headline()
    report = (tmp_path / "conformance.md").read_text()
    junit = (tmp_path / "conformance.junit.xml").read_text()
    assert "**INTERRUPTED**" in report and "## Failures" not in report
    assert 'failures="0"' in junit
    assert KEYS[0] not in report + junit + suite.headline()
