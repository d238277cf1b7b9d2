"""``--dry-run`` lists every check that would run and every skipped one with its reason, sends
nothing, and skips exactly what a real run skips."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from together_rl_contract_tests import SuiteOptions, run_suite
from together_rl_contract_tests._cli import main
from together_rl_contract_tests._http import TargetClient
from together_rl_contract_tests._plan import planned_provision
from together_rl_contract_tests._provision import provision
from together_rl_contract_tests._results import SKIPPED
from together_rl_contract_tests._runner import plan_scenarios

from ._stub_server import KEY, http_server

SCENARIOS = ("test_lifecycle.py", "test_auth.py", "test_validation.py", "test_operation_kinds.py")


def dry_run(url: str, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    assert main(["--base-url", url, "--api-key", KEY, "--dry-run", *extra]) == 0
    captured = capsys.readouterr()
    return captured.out + captured.err


def test_dry_run_sends_nothing_and_gives_every_reason(capsys: pytest.CaptureFixture[str]) -> None:
    requests: list[str] = []

    def record(authorization: str) -> bytes:
        requests.append(authorization)
        return b"{}"

    with http_server(200, "application/json", record) as url:
        without_session = dry_run(url, capsys)
        with_session = dry_run(url, capsys, "--session-id", "sess-1")
        mutations = dry_run(url, capsys, "--allow-mutations", "--second-api-key", "k2-0123456789")
    assert requests == []
    for output in (without_session, with_session, mutations):
        assert output.startswith(f"Dry run: nothing was sent to {url}")
        assert "spec version " in output and "Would run (" in output
        assert KEY not in output
    assert "needs --session-id" in without_session
    assert "needs --allow-mutations" in without_session
    assert "needs --session-id" not in with_session
    assert "needs --second-api-key" in with_session
    assert "[forward-only passes to session sess-1 (billed inference)]" in with_session
    assert "emulator only: " in with_session
    assert "needs --allow-mutations" not in mutations and "needs --second-api-key" not in mutations
    assert "[read-only]" in without_session


def test_dry_run_skips_what_a_real_run_skips(serve_emulator, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    options = SuiteOptions(schemathesis=False, scenario_modules=SCENARIOS, progress=False)
    with serve_emulator() as emulator:
        with TargetClient(emulator) as client:
            resources = client.create_model_resources("emulator/tiny-1k")
            session_id = client.start_session(resources["id"])["id"]
        # The emulator as a read-only "real" API: what a key holder's first run looks like.
        target = dataclasses.replace(emulator, is_emulator=False, session_id=session_id)
        planned = plan_scenarios(target, options)
        suite = run_suite(target, dataclasses.replace(options, report_dir=tmp_path))
    assert suite.verdict == "PASSED", suite.headline()
    planned_skips = {(p.check, p.skip_reason) for p in planned if p.skip_reason is not None}
    actual_skips = {(r.check, r.detail) for r in suite.results if r.status == SKIPPED}
    assert planned_skips == actual_skips
    assert len(planned) == len(suite.results)
    assert planned_skips  # the read-only target does skip some


@pytest.mark.parametrize("mode", ["emulator", "read-only with a session", "read-only"])
def test_planned_provision_matches_provision(serve_emulator, mode: str) -> None:  # type: ignore[no-untyped-def]
    with serve_emulator() as emulator:
        target = emulator
        if mode != "emulator":
            with TargetClient(emulator) as client:
                resources = client.create_model_resources("emulator/tiny-1k")
                session_id = client.start_session(resources["id"])["id"]
            target = dataclasses.replace(
                emulator,
                is_emulator=False,
                session_id=session_id if mode == "read-only with a session" else None,
            )
        actual = dataclasses.asdict(provision(target))
    planned = dataclasses.asdict(planned_provision(target))
    assert {k: v is None for k, v in planned.items() if k != "operation_ids"} == {
        k: v is None for k, v in actual.items() if k != "operation_ids"
    }
    assert set(planned["operation_ids"]) == set(actual["operation_ids"])
