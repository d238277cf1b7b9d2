"""The pieces the suite drives a server with, for checks built beside it (the reliability proofs
in ``reliability/``, the benchmarks):

    from together_rl_contract_tests.harness import emulator_subprocess, schemathesis_checks

    with emulator_subprocess(seed=0) as target:          # python -m together_rl_emulator, loopback
        results = schemathesis_checks(target, max_examples=50, negative_only=True)
    failed = [r for r in results if r.status == FAILED]

- :class:`EmulatorProcess` / :func:`emulator_subprocess`: the emulator as a subprocess on a free
  loopback port (killable, restartable on the same port and state directory);
- :func:`wait_until_terminal` and :data:`TERMINAL_STATUSES`: the suite's polling loop;
- :data:`PROBE_BODY` and :data:`KIND_PROBE_BODIES`: the small valid bodies the suite submits;
- :func:`schemathesis_checks`: part 1 of the suite alone (schemathesis with the suite's
  configuration), one :class:`~together_rl_contract_tests.CheckResult` per check applied,
  whose ``status`` is :data:`PASSED`, :data:`FAILED` or one of the others of the report.
"""

from __future__ import annotations

from together_rl_contract_tests._emulator_process import EmulatorProcess, emulator_subprocess
from together_rl_contract_tests._http import TERMINAL_STATUSES, wait_until_terminal
from together_rl_contract_tests._provision import KIND_PROBE_BODIES, PROBE_BODY, provision
from together_rl_contract_tests._results import FAILED, PASSED, CheckResult
from together_rl_contract_tests._schemathesis_config import ALL_PHASES, load_schema
from together_rl_contract_tests._schemathesis_run import run_schemathesis
from together_rl_contract_tests._target import Target

__all__ = [
    "FAILED",
    "KIND_PROBE_BODIES",
    "PASSED",
    "PROBE_BODY",
    "TERMINAL_STATUSES",
    "EmulatorProcess",
    "emulator_subprocess",
    "schemathesis_checks",
    "wait_until_terminal",
]


def schemathesis_checks(
    target: Target,
    *,
    seed: int = 0,
    max_examples: int = 10,
    phases: tuple[str, ...] = ALL_PHASES,
    negative_only: bool = False,
) -> list[CheckResult]:
    """schemathesis over every operation of the spec against ``target``, configured as the
    suite configures it (provisioned ids, fresh Idempotency-Keys, bearer auth), silently.
    ``negative_only``: only requests that break the spec, each of which must be refused with a
    4xx."""
    schema = load_schema(
        target,
        provision(target),
        seed=seed,
        max_examples=max_examples,
        phases=phases,
        negative_only=negative_only,
    )
    results, _warnings = run_schemathesis(schema, target, progress=lambda line: None)
    return results
