"""Results of a suite run, aggregated as operation x check, and the summary table and JUnit file."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from pathlib import Path
from xml.etree import ElementTree

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"
MAX_DETAILS_PER_ROW = 5


@dataclasses.dataclass(frozen=True)
class CheckResult:
    """One check applied once: a schemathesis check on one response, or one scenario test."""

    part: str  # "schemathesis" | "scenario" | "loss-math"
    operation: str  # "POST /rl/training-sessions" or "-" when no single operation applies
    check: str
    status: str  # PASSED | FAILED | SKIPPED
    detail: str = ""


@dataclasses.dataclass
class Row:
    part: str
    operation: str
    check: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    details: list[str] = dataclasses.field(default_factory=list)

    def add(self, result: CheckResult) -> None:
        if result.status == PASSED:
            self.passed += 1
        elif result.status == FAILED:
            self.failed += 1
        else:
            self.skipped += 1
        if result.detail and result.status != PASSED and len(self.details) < MAX_DETAILS_PER_ROW:  # noqa: SIM102
            if result.detail not in self.details:
                self.details.append(result.detail)


@dataclasses.dataclass
class SuiteResult:
    """Everything a run produced."""

    target: str
    results: list[CheckResult] = dataclasses.field(default_factory=list)
    #: Findings that are not pass/fail: which loss definition matched, schemathesis warnings, ...
    notes: list[str] = dataclasses.field(default_factory=list)
    duration_s: float = 0.0

    @property
    def failed(self) -> bool:
        return any(r.status == FAILED for r in self.results)

    def rows(self) -> list[Row]:
        table: dict[tuple[str, str, str], Row] = {}
        for result in self.results:
            key = (result.part, result.operation, result.check)
            table.setdefault(key, Row(*key)).add(result)
        return sorted(table.values(), key=lambda r: (r.part, r.operation, r.check))

    def totals(self) -> dict[str, int]:
        counts: dict[str, int] = defaultdict(int)
        for result in self.results:
            counts[result.status] += 1
        return {s: counts[s] for s in (PASSED, FAILED, SKIPPED)}


def summary_table(suite: SuiteResult) -> str:
    """A plain-text table: one line per part x operation x check, with counts."""
    rows = suite.rows()
    headers = ("part", "operation", "check", "passed", "failed", "skipped")
    lines = [
        (r.part, r.operation, r.check, str(r.passed), str(r.failed), str(r.skipped)) for r in rows
    ]
    widths = [max(len(h), *(len(line[i]) for line in lines)) if lines else len(h)
              for i, h in enumerate(headers)]  # fmt: skip

    def fmt(cells: tuple[str, ...]) -> str:
        left = [c.ljust(w) for c, w in zip(cells[:3], widths[:3], strict=True)]
        right = [c.rjust(w) for c, w in zip(cells[3:], widths[3:], strict=True)]
        return "  ".join(left + right)

    out = [fmt(headers), "  ".join("-" * w for w in widths)]
    out += [fmt(line) + ("   <-- FAILED" if line[4] != "0" else "") for line in lines]
    totals = suite.totals()
    out.append(
        f"total: {totals[PASSED]} passed, {totals[FAILED]} failed, {totals[SKIPPED]} skipped "
        f"in {suite.duration_s:.1f} s against {suite.target}"
    )
    return "\n".join(out)


def write_junit(suite: SuiteResult, path: Path) -> None:
    """One <testcase> per part x operation x check; a failure lists the first distinct details."""
    rows = suite.rows()
    totals = suite.totals()
    root = ElementTree.Element("testsuites")
    testsuite = ElementTree.SubElement(
        root,
        "testsuite",
        name="conformance",
        tests=str(len(rows)),
        failures=str(sum(1 for r in rows if r.failed)),
        skipped=str(sum(1 for r in rows if not r.failed and not r.passed and r.skipped)),
        time=f"{suite.duration_s:.3f}",
    )
    properties = ElementTree.SubElement(testsuite, "properties")
    ElementTree.SubElement(properties, "property", name="target", value=suite.target)
    for status, count in totals.items():
        ElementTree.SubElement(properties, "property", name=f"checks_{status}", value=str(count))
    for row in rows:
        case = ElementTree.SubElement(
            testsuite, "testcase", classname=f"{row.part}.{row.operation}", name=row.check
        )
        counts = f"{row.passed} passed, {row.failed} failed, {row.skipped} skipped"
        if row.failed:
            failure = ElementTree.SubElement(case, "failure", message=counts)
            failure.text = "\n\n".join(row.details)
        elif not row.passed and row.skipped:
            ElementTree.SubElement(case, "skipped", message="; ".join(row.details) or counts)
        ElementTree.SubElement(case, "system-out").text = counts
    path.parent.mkdir(parents=True, exist_ok=True)
    ElementTree.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
