"""Contract suite: does a server conform to ``spec/openapi.yaml`` and the behaviour it describes?

Run it with ``python -m together_rl_contract_tests`` (against the embedded emulator, started on a free
loopback port) or ``python -m together_rl_contract_tests --base-url URL --api-key KEY`` (against any server). Three parts:

1. schemathesis over every operation of the spec (all phases, all checks);
2. scenario tests schemathesis cannot express (idempotency, lifecycle, auth, validation, ordering,
   and for optim-step, sample, weights-sync, custom forward-backward and large payloads);
3. loss-math conformance (forward-only passes recomputed with ``_loss_reference``).

A breach of a rule of this project's choice (``x-source: emulator``) by any server but the
embedded emulator is a difference, not a failure. The console script ``together-rl-conformance``
is :func:`main`; the proxy and replay are the package :mod:`together_rl_contract_tests.proxy`.

Everything ends in one summary table, ``reports/conformance.junit.xml`` and
``reports/conformance.md``.
"""  # noqa: E501

from together_rl_contract_tests._cli import main
from together_rl_contract_tests._results import CheckResult, SuiteResult
from together_rl_contract_tests._runner import SuiteOptions, run_suite
from together_rl_contract_tests._target import Target

__all__ = ["CheckResult", "SuiteOptions", "SuiteResult", "Target", "main", "run_suite"]
