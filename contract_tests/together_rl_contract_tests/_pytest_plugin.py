"""A pytest plugin that turns scenario and loss-math test outcomes into :class:`CheckResult`s.

It also tells a test that got no answer from the target from a failed one, and stops the session
once the target is lost (the tests that did not run then count as never answered). The skip
policy (``conftest.py``, :func:`together_rl_contract_tests._plan.scenario_plan_entry`) reads
``target``. With ``dry_run`` it only collects: ``planned`` lists each test and why it would be
skipped.
"""

from __future__ import annotations

from collections.abc import Generator

import pytest

from together_rl_contract_tests._http import StatusRuleBreach
from together_rl_contract_tests._plan import PlannedCheck, scenario_plan_entry
from together_rl_contract_tests._preflight import TargetWatch, is_transport_error
from together_rl_contract_tests._progress import Progress
from together_rl_contract_tests._results import (
    DIFFERENCE,
    FAILED,
    NO_ANSWER,
    PASSED,
    SKIPPED,
    CheckResult,
)
from together_rl_contract_tests._spec_check import Rule, installed_judge
from together_rl_contract_tests._target import Target

__all__ = ["ResultCollector"]

NOT_RUN_DETAIL = "not run: the target was lost before this test"


class ResultCollector:
    """Passed to ``pytest.main`` by the runner; ``conftest.py`` reads ``target`` from it."""

    def __init__(
        self,
        target: Target,
        *,
        progress: Progress | None = None,
        watch: TargetWatch | None = None,
        dry_run: bool = False,
    ) -> None:
        self.target = target
        self.progress = progress if progress is not None else Progress()
        self.watch = watch
        self.dry_run = dry_run
        self.results: list[CheckResult] = []
        #: Findings the tests report (``findings`` fixture), e.g. which loss definition matched.
        self.notes: list[str] = []
        #: With ``dry_run``: every collected test and what would happen to it.
        self.planned: list[PlannedCheck] = []
        self._labels: dict[str, tuple[str, str]] = {}
        self._reported: set[str] = set()
        self._no_answer: dict[str, str] = {}
        #: nodeid -> the status rules a test failed on (its :class:`StatusRuleBreach`).
        self._breached: dict[str, list[Rule]] = {}

    @pytest.hookimpl(trylast=True)  # after -k has deselected
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            marker = item.get_closest_marker("operation")
            operation = str(marker.args[0]) if marker else "-"
            part = "loss-math" if "test_loss_math" in item.nodeid else "scenario"
            self._labels[item.nodeid] = (operation, part)
        if self.dry_run:
            self.planned = [scenario_plan_entry(item, self.target, *self._labels[item.nodeid])
                            for item in items]  # fmt: skip
            items[:] = []
        elif self.watch is not None and self.watch.lost is not None:
            items[:] = []  # counted as never answered at the end of the session
        else:
            self.progress.part("scenario and loss-math tests", len(items))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, None]:
        outcome = yield
        report = outcome.get_result()  # type: ignore[attr-defined]
        excinfo = call.excinfo
        if report.failed and excinfo is not None and isinstance(excinfo.value, StatusRuleBreach):
            breach = excinfo.value
            judge = installed_judge()
            self._breached[item.nodeid] = judge.status_rules(breach.operation_id, breach.expected)
        if (
            report.failed
            and excinfo is not None
            and self.watch is not None
            and is_transport_error(excinfo.value)
        ):
            detail = self.watch.no_answer(excinfo.value)
            self._no_answer[item.nodeid] = detail
            # Shown by pytest as skipped, never as FAILED: it says nothing about conformance.
            report.outcome = "skipped"
            report.longrepr = (str(item.path), item.location[1] or 0, detail)
            if self.watch.lost is not None:
                item.session.shouldstop = self.watch.lost

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" or (report.when == "setup" and not report.passed):
            status = PASSED if report.passed else SKIPPED if report.skipped else FAILED
            detail = ""
            if report.skipped and isinstance(report.longrepr, tuple):
                detail = str(report.longrepr[2]).removeprefix("Skipped: ")
            elif report.failed:
                detail = report.longreprtext[-3000:]
            if report.nodeid in self._no_answer:
                status, detail = NO_ANSWER, self._no_answer[report.nodeid]
            elif status == FAILED and not self.target.is_emulator:
                status, detail = self._judged(report.nodeid, detail)
            self._add(report.nodeid, status, detail)
            self.progress.advance()

    def _judged(self, nodeid: str, detail: str) -> tuple[str, str]:
        """A test that failed on a status rule that is only this project's choice: a difference."""
        rules = self._breached.get(nodeid, [])
        if not rules or not all(rule.is_emulator_choice for rule in rules):
            return FAILED, detail
        named = "; ".join(rule.describe() for rule in rules)
        return DIFFERENCE, f"rules of this project's choice: {named}\nevidence:\n{detail}"

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        lost = self.watch is not None and self.watch.lost is not None
        if self.dry_run or not lost:
            return
        for nodeid in self._labels:
            if nodeid not in self._reported:
                self._add(nodeid, NO_ANSWER, NOT_RUN_DETAIL)

    def _add(self, nodeid: str, status: str, detail: str) -> None:
        self._reported.add(nodeid)
        operation, part = self._labels.get(nodeid, ("-", "scenario"))
        check = nodeid.split("::", 1)[-1]
        self.results.append(CheckResult(part, operation, check, status, detail))
        self.progress(f"[{part}] {check:<70} {status.upper()}")
