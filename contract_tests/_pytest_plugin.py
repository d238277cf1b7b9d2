"""A pytest plugin that turns scenario and loss-math test outcomes into :class:`CheckResult`s."""

from __future__ import annotations

import sys

import pytest

from contract_tests._results import FAILED, PASSED, SKIPPED, CheckResult
from contract_tests._target import Target


class ResultCollector:
    """Passed to ``pytest.main`` by the runner; ``conftest.py`` reads ``target`` from it."""

    def __init__(self, target: Target, *, progress: bool = True) -> None:
        self.target = target
        self.progress = progress
        self.results: list[CheckResult] = []
        #: Findings the tests report (``findings`` fixture), e.g. which loss definition matched.
        self.notes: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" or (report.when == "setup" and not report.passed):
            status = PASSED if report.passed else SKIPPED if report.skipped else FAILED
            detail = ""
            if report.skipped and isinstance(report.longrepr, tuple):
                detail = str(report.longrepr[2])
            elif report.failed:
                detail = report.longreprtext[-3000:]
            operation, part = self._labels.get(report.nodeid, ("-", "scenario"))
            check = report.nodeid.split("::", 1)[-1]
            self.results.append(CheckResult(part, operation, check, status, detail))
            if self.progress:
                print(f"[{part}] {check:<70} {status.upper()}", file=sys.stderr, flush=True)

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        self._labels: dict[str, tuple[str, str]] = {}
        for item in items:
            marker = item.get_closest_marker("operation")
            operation = str(marker.args[0]) if marker else "-"
            part = "loss-math" if "test_loss_math" in item.nodeid else "scenario"
            self._labels[item.nodeid] = (operation, part)
