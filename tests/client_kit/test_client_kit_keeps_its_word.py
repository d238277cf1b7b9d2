"""The kit judges what its scenarios promise: every field of `expect` (a driver that gives up
with an error after one GET fails every polling scenario, even one whose rule only bounds the
poll rate), a rule that crashes is a KIT_ERROR with its traceback (exit 2), never NOT_RUN, and
the fault actions a scenario may name are the referee's registry."""

from __future__ import annotations

from pathlib import Path

import pytest
from client_kit_runs import REFERENCE_DRIVER, python_command, run
from together_rl_client_kit import RULES, ScenarioError, load_scenarios, render
from together_rl_client_kit._faults import FAULT_ACTIONS
from together_rl_client_kit._rules import Rule
from together_rl_client_kit._scenarios import _schema

#: The scenarios that script the GETs polling an operation (polling.yaml).
POLLING = sorted(s.id for s in load_scenarios() if any(f.target == "poll" for f in s.faults))


def test_a_driver_that_gives_up_after_one_get_fails_every_polling_scenario() -> None:
    command = python_command(str(REFERENCE_DRIVER), "--misbehave", "give-up-polling")
    report = run(command, only=set(POLLING), call_timeout=10.0)
    by_id = {s.id: s for s in report.scenarios if s.id in POLLING}
    assert len(by_id) == len(POLLING) >= 4
    assert {i: s.verdict for i, s in by_id.items()} == dict.fromkeys(POLLING, "FAIL")
    # Its only rule held (one GET is no flood): the expected result is what fails it.
    bounded = by_id["poll.rate-bounded"]
    assert bounded.failed_rules == ("expect",), bounded.message
    assert "should be handed back a result" in bounded.message
    assert "gave up waiting for the operation after one GET" in bounded.message
    assert report.exit_code() == 1


def test_a_rule_that_crashes_is_a_kit_error_with_its_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def crash(*_: object) -> str | None:
        return {}["no-such-key"]  # type: ignore[no-any-return]

    monkeypatch.setitem(RULES, "fresh-key-per-call", Rule("fresh-key-per-call", "crashes", crash))
    report = run(python_command(str(REFERENCE_DRIVER)), only={"keys.new-key-per-call"})
    (result,) = [s for s in report.scenarios if s.id == "keys.new-key-per-call"]
    assert result.verdict == "KIT_ERROR"
    assert "Traceback (most recent call last)" in result.message
    assert "KeyError: 'no-such-key'" in result.message
    assert report.exit_code() == 2
    assert 'errors="1"' in render(report, "junit")


def test_the_schema_takes_its_fault_actions_from_the_referee_registry(tmp_path: Path) -> None:
    assert _schema()["$defs"]["fault"]["properties"]["action"]["enum"] == list(FAULT_ACTIONS)
    scenario = tmp_path / "explode.yaml"
    scenario.write_text(
        "scenarios: [{id: x, level: MUST, title: t, requires: [], rules: [result-returned], "
        "calls: [{op: getTrainingSession}], faults: [{target: call, action: explode}], "
        "expect: {ok: true}}]"
    )
    with pytest.raises(ScenarioError, match="'explode' is not one of") as refused:
        load_scenarios([scenario])
    assert all(name in str(refused.value) for name in FAULT_ACTIONS)


def test_each_result_says_how_long_its_faults_made_any_client_wait() -> None:
    """`scripted_wait` is what the scenario's Retry-After answers asked for (the benchmark
    takes it off a run's time: an HTTP date waits 1-2 s by the phase of the second), within
    the scenario's seconds; a scenario without one waited nothing."""
    waits = {"retry.429-retry-after-seconds": 1.0, "retry.429-retry-after-ms": 0.4}
    report = run(python_command(str(REFERENCE_DRIVER)), only={*waits, "no-retry.400"})
    by_id = {s.id: s for s in report.scenarios if s.verdict != "NOT_RUN"}
    assert set(by_id) == {*waits, "no-retry.400"}
    for scenario_id, wait in waits.items():
        result = by_id[scenario_id]
        assert result.verdict == "PASS", result.message
        assert result.scripted_wait == pytest.approx(wait)
        assert result.seconds >= result.scripted_wait
    assert by_id["no-retry.400"].scripted_wait == 0.0
