"""A driver that misbehaves is reported as such in the scenario where it happened, with the tail
of its stderr; every wait has a timeout, the kit never hangs, and what it started is stopped."""

from __future__ import annotations

import threading

import pytest
from client_kit_runs import REFERENCE_DRIVER, python_command, run

THREE = ["no-retry.400", "keys.new-key-per-call", "retry.503-on-get"]
# The order the kit runs them in (the scenario files' order).
SECOND = "keys.new-key-per-call"


def _threads_left() -> list[str]:
    return [
        t.name for t in threading.enumerate() if t.name in ("client-kit-referee", "emulator-thread")
    ]


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("crash", "driver crashed"),
        ("hang", "driver hung: did not write an answer"),
        ("non-json", "driver not-json: wrote a line that is not JSON: this is not JSON"),
        ("wrong-id", "driver wrong-id: answered id"),
    ],
)
def test_misbehaviour_fails_its_scenario_and_the_kit_goes_on(kind: str, words: str) -> None:
    command = python_command(str(REFERENCE_DRIVER), "--misbehave", kind, "--at", "2")
    report = run(command, only=set(THREE), call_timeout=3.0)
    by_id = {s.id: s for s in report.scenarios}
    first, second, third = (by_id[i] for i in ("no-retry.400", SECOND, "retry.503-on-get"))
    assert first.verdict == "PASS", first.message
    assert second.verdict == "FAIL"
    assert words in second.message
    assert f"misbehaving ({kind}) at request 2" in second.message  # the tail of its stderr
    assert third.verdict == "PASS", third.message  # a fresh driver process took over
    assert report.exit_code() == 1
    assert _threads_left() == []


def test_driver_that_never_declares_itself_fails_every_scenario() -> None:
    command = python_command(str(REFERENCE_DRIVER), "--misbehave", "silent")
    report = run(command, only=set(THREE), handshake_timeout=2.0)
    failed = [s for s in report.scenarios if s.id in THREE]
    assert [s.verdict for s in failed] == ["FAIL"] * 3
    assert all("driver no-declaration: never declared itself" in s.message for s in failed)
    assert all("starting up, but never declaring" in s.message for s in failed)
    assert _threads_left() == []


def test_driver_that_cannot_start_is_reported() -> None:
    report = run("/nonexistent/driver --flag", only={"no-retry.400"})
    result = next(s for s in report.scenarios if s.id == "no-retry.400")
    assert result.verdict == "FAIL"
    assert "cannot start '/nonexistent/driver --flag'" in result.message


def test_driver_whose_first_line_is_not_a_declaration() -> None:
    command = python_command("-c", "print('hello'); import time; time.sleep(60)")
    report = run(command, only={"no-retry.400"}, handshake_timeout=5.0)
    result = next(s for s in report.scenarios if s.id == "no-retry.400")
    assert result.verdict == "FAIL"
    assert 'its first line is not {"driver": NAME' in result.message
