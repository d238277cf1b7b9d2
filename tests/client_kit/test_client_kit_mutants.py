"""Proof that the kit can fail and is fair: the reference client passes everything, and each of
its mutants (one broken rule each) fails exactly the scenarios that judge that rule.

The seven runs go three at a time (each has its own emulator, referee and driver process): they
mostly wait on scripted delays, and the kit judges time on the server with tolerance windows.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from client_kit_runs import REFERENCE_DRIVER, python_command, run, verdicts
from reference_driver import MUTATIONS
from together_rl_client_kit import KitReport, load_scenarios


@pytest.fixture(scope="module")
def reports() -> dict[str | None, KitReport]:
    commands: dict[str | None, str] = {None: python_command(str(REFERENCE_DRIVER))}
    for mutation in MUTATIONS:
        commands[mutation] = python_command(str(REFERENCE_DRIVER), "--mutation", mutation)
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {name: pool.submit(run, command) for name, command in commands.items()}
        return {name: future.result() for name, future in futures.items()}


def test_reference_client_passes_every_scenario(reports: dict[str | None, KitReport]) -> None:
    report = reports[None]
    assert {k: v for k, v in verdicts(report).items() if v != "PASS"} == {}
    assert report.exit_code() == 0


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_mutant_fails_exactly_the_scenarios_of_its_rule(
    reports: dict[str | None, KitReport], mutation: str
) -> None:
    rule = MUTATIONS[mutation]
    targeting = {s.id for s in load_scenarios() if rule in s.rules}
    assert targeting, f"no scenario judges {rule}"
    report = reports[mutation]
    failed = {s.id: s.message for s in report.scenarios if s.verdict == "FAIL"}
    assert set(failed) == targeting, failed
    for result in report.scenarios:
        if result.verdict == "FAIL":
            assert rule in result.message  # the message names the rule and the evidence
            assert rule in result.failed_rules
    assert report.exit_code() == 1
