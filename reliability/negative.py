"""schemathesis in negative mode only (requests that break the spec), for longer than the CI run.

Reuses the contract suite's schemathesis configuration (pinned ids, fresh Idempotency-Keys, bearer
auth) and switches generation to negative data: every case must be refused with a 4xx (never a
5xx, never accepted), the checks being schemathesis's own (`not_a_server_error`,
`negative_data_rejection`, `status_code_conformance`, `content_type_conformance`,
`response_schema_conformance`, ...).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from together_rl_contract_tests.harness import (
    FAILED,
    PASSED,
    emulator_subprocess,
    schemathesis_checks,
)

PHASES = ("examples", "coverage", "fuzzing")


@dataclass
class NegativeReport:
    max_examples: int
    checks_passed: int
    checks_failed: int
    failures: list[str] = field(default_factory=list)
    checks_by_name: dict[str, int] = field(default_factory=dict)
    checks_by_operation: dict[str, int] = field(default_factory=dict)
    duration_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.checks_failed == 0 and self.checks_passed > 0


def run_negative(max_examples: int = 200, seed: int = 0) -> NegativeReport:
    started = time.monotonic()
    with emulator_subprocess(seed=seed) as target:
        results = schemathesis_checks(
            target, seed=seed, max_examples=max_examples, phases=PHASES, negative_only=True
        )
    failed = [r for r in results if r.status == FAILED]
    return NegativeReport(
        max_examples=max_examples,
        checks_passed=sum(1 for r in results if r.status == PASSED),
        checks_failed=len(failed),
        failures=[_short(f"{r.operation} {r.check}: {r.detail}") for r in failed],
        checks_by_name=dict(Counter(r.check for r in results if r.status == PASSED)),
        checks_by_operation=dict(Counter(r.operation for r in results if r.status == PASSED)),
        duration_s=time.monotonic() - started,
    )


def _short(failure: str, limit: int = 600) -> str:
    """`failure` cut to `limit` characters, keeping its `Reproduce:` line (the request sent)."""
    head, found, reproduce = failure.partition("\nReproduce: ")
    tail = f" ... Reproduce: {reproduce}" if found else ""
    return head[: max(0, limit - len(tail))] + tail
