"""Part 1: schemathesis over every operation of the spec, driven through its engine.

The engine runs all four phases (examples, coverage, fuzzing, stateful through the spec's links)
with every check; its events give, per generated case, the result of each check, which become
:class:`CheckResult` rows (:mod:`together_rl_contract_tests._schemathesis_verdict` says what a
failed check is worth). The configuration is :mod:`together_rl_contract_tests._schemathesis_config`,
the plan of what is fuzzed :mod:`together_rl_contract_tests._schemathesis_plan`, the case hooks
:mod:`together_rl_contract_tests._schemathesis_hooks`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from schemathesis.engine import Status, events, from_schema
from schemathesis.engine.errors import ServerUnavailable

from together_rl_contract_tests._preflight import TargetWatch, is_transport_error
from together_rl_contract_tests._results import FAILED, NO_ANSWER, PASSED, SKIPPED, CheckResult
from together_rl_contract_tests._schemathesis_hooks import CaseHooks
from together_rl_contract_tests._schemathesis_verdict import format_error, scenario_results
from together_rl_contract_tests._target import Target

__all__ = ["run_schemathesis"]

Progress = Callable[[str], None]


def _print(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def run_schemathesis(
    schema: Any,
    target: Target,
    progress: Progress = _print,
    *,
    watch: TargetWatch | None = None,
    advance: Callable[[], None] = lambda: None,
) -> tuple[list[CheckResult], list[str]]:
    """Run the engine over ``schema``; return one result per check applied, and the warnings.

    With a ``watch``, a request that got no answer is a NO_ANSWER row, not a failure, and the
    engine's verdict that the server went away marks the target lost (the engine then stops).
    ``advance`` is called once per finished scenario (an operation in one phase)."""
    with CaseHooks.fresh_keys():
        return _run(schema, target, progress, watch, advance)


MISSING_DATA_MIN_CASES = 5
MISSING_DATA_RATIO = 0.9


def _positive_statuses(recorder: Any) -> list[int]:
    statuses = []
    for case_id, interaction in recorder.interactions.items():
        node = recorder.cases.get(case_id)
        mode = getattr(getattr(getattr(node, "value", None), "meta", None), "generation", None)
        if node is None or getattr(getattr(mode, "mode", None), "value", None) != "positive":
            continue
        if interaction.response is not None:
            statuses.append(int(interaction.response.status_code))
    return statuses


def _missing_test_data(statuses_by_operation: dict[str, list[int]]) -> list[CheckResult]:
    """schemathesis's "missing test data" condition: positive cases that almost only see 404."""
    results = []
    for label, statuses in sorted(statuses_by_operation.items()):
        if label == "Stateful tests" or len(statuses) < MISSING_DATA_MIN_CASES:
            continue
        share = statuses.count(404) / len(statuses)
        status = FAILED if share >= MISSING_DATA_RATIO else PASSED
        detail = f"{share:.0%} of {len(statuses)} positive cases answered 404 (ids not pinned?)"
        results.append(
            CheckResult("schemathesis", label, "(test data reaches the logic)", status, detail)
        )
    return results


def _run(
    schema: Any,
    target: Target,
    progress: Progress,
    watch: TargetWatch | None,
    advance: Callable[[], None],
) -> tuple[list[CheckResult], list[str]]:
    results: list[CheckResult] = []
    notes: list[str] = []
    positive: dict[str, list[int]] = {}
    stream = from_schema(schema).execute()
    for event in stream:
        if isinstance(event, events.ScenarioFinished) and event.phase.value != "stateful":
            positive.setdefault(event.recorder.label, []).extend(_positive_statuses(event.recorder))
        if isinstance(event, events.PhaseStarted):
            progress(f"[schemathesis] phase {event.phase.name.value} ...")
        elif isinstance(event, events.ScenarioFinished):
            scenario = scenario_results(event.recorder, event.phase.value, target)
            results += scenario
            failed = sum(1 for r in scenario if r.status == FAILED)
            status = "FAILED" if failed else event.status.value
            if event.status == Status.SKIP and not scenario:
                results.append(
                    CheckResult(
                        "schemathesis",
                        event.recorder.label,
                        "(operation)",
                        SKIPPED,
                        event.skip_reason or "skipped by schemathesis",
                    )
                )
            progress(
                f"[schemathesis] {event.phase.value:<9} {event.recorder.label:<78} "
                f"{len(event.recorder.cases):>4} cases  {status}"
            )
            advance()
        elif isinstance(event, events.NonFatalError) and watch is not None and _no_answer(event):
            if isinstance(event.value, ServerUnavailable):
                what = _first_line(event.value).split(". Last", 1)[0]
                watch.mark_lost(f"the target stopped answering: {what}")
                detail = f"no answer: {what}"
            else:
                detail = watch.no_answer(event.value)
            results.append(CheckResult("schemathesis", event.label, "(request)", NO_ANSWER, detail))
            progress(f"[schemathesis] no answer in {event.label}: {detail}")
            if watch.lost is not None:
                stream.finish()
                break
        elif isinstance(event, events.NonFatalError):
            results.append(
                CheckResult(
                    "schemathesis", event.label, "(error)", FAILED, format_error(event.value)
                )
            )
            progress(f"[schemathesis] error in {event.label}: {event.value!r}")
        elif isinstance(event, events.FatalError):
            results.append(
                CheckResult("schemathesis", "-", "(fatal)", FAILED, format_error(event.exception))
            )
            progress(f"[schemathesis] fatal: {event.exception!r}")
        elif isinstance(event, events.SchemaAnalysisWarnings):
            for warning in event.warnings:
                notes.append(f"schemathesis warning: {warning}")
    results += _missing_test_data(positive)
    return results, notes


def _no_answer(event: Any) -> bool:
    return isinstance(event.value, ServerUnavailable) or is_transport_error(event.value)


def _first_line(error: BaseException) -> str:
    return (str(error).strip() or type(error).__name__).splitlines()[0]
