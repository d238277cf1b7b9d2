"""Results of a suite run, aggregated as operation x check, and the summary table and JUnit file."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from pathlib import Path
from xml.etree import ElementTree

__all__ = [
    "DIFFERENCE",
    "FAILED",
    "NO_ANSWER",
    "PASSED",
    "SKIPPED",
    "CheckResult",
    "Row",
    "SuiteResult",
    "summary_table",
    "write_junit",
]

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"
#: A check whose request never got an HTTP answer (the target was unreachable): not a failure.
NO_ANSWER = "no answer"
#: A breach of a rule that is this project's choice (``x-source: emulator``) by a server other
#: than the embedded emulator: reported with the rule, its source and the evidence, not a failure.
DIFFERENCE = "difference"
STATUSES = (PASSED, FAILED, DIFFERENCE, SKIPPED, NO_ANSWER)
MAX_DETAILS_PER_ROW = 5


@dataclasses.dataclass(frozen=True)
class CheckResult:
    """One check applied once: a schemathesis check on one response, or one scenario test."""

    part: str  # "schemathesis" | "scenario" | "loss-math"
    operation: str  # "POST /rl/training-sessions" or "-" when no single operation applies
    check: str
    status: str  # PASSED | FAILED | DIFFERENCE | SKIPPED | NO_ANSWER
    detail: str = ""


@dataclasses.dataclass
class Row:
    part: str
    operation: str
    check: str
    passed: int = 0
    failed: int = 0
    differences: int = 0
    skipped: int = 0
    no_answer: int = 0
    details: list[str] = dataclasses.field(default_factory=list)

    def add(self, result: CheckResult) -> None:
        if result.status == PASSED:
            self.passed += 1
        elif result.status == FAILED:
            self.failed += 1
        elif result.status == DIFFERENCE:
            self.differences += 1
        elif result.status == NO_ANSWER:
            self.no_answer += 1
        else:
            self.skipped += 1
        if result.detail and result.status != PASSED and len(self.details) < MAX_DETAILS_PER_ROW:  # noqa: SIM102
            if result.detail not in self.details:
                self.details.append(result.detail)


@dataclasses.dataclass
class SuiteResult:
    """Everything a run produced."""

    target: str
    spec_version: str = ""
    results: list[CheckResult] = dataclasses.field(default_factory=list)
    #: Findings that are not pass/fail: which loss definition matched, schemathesis warnings, ...
    notes: list[str] = dataclasses.field(default_factory=list)
    duration_s: float = 0.0
    #: Why no check ran (the preflight's one-line cause), or ``None``.
    not_run: str | None = None
    #: Why the run stopped before its end (the target went away), or ``None``.
    lost: str | None = None

    @property
    def failed(self) -> bool:
        return any(r.status == FAILED for r in self.results)

    @property
    def no_answer(self) -> int:
        """Checks that never got an answer (counted apart from failures)."""
        return sum(1 for r in self.results if r.status == NO_ANSWER)

    @property
    def verdict(self) -> str:
        """NOT RUN and INTERRUPTED say nothing about conformance; FAILED and PASSED do."""
        if self.not_run is not None:
            return "NOT RUN"
        if self.lost is not None or self.no_answer:
            return "INTERRUPTED"
        return "FAILED" if self.failed else "PASSED"

    @property
    def cause(self) -> str:
        """One line explaining a NOT RUN or INTERRUPTED verdict ("" otherwise)."""
        if self.not_run is not None:
            return self.not_run
        if self.lost is not None or self.no_answer:
            reason = self.lost or "some requests got no answer"
            return f"{reason}; {self.no_answer} checks never got an answer (not counted as failed)"
        return ""

    @property
    def exit_code(self) -> int:
        """0 passed, 1 a conformance failure, 2 the target could not be checked (fully)."""
        return {"PASSED": 0, "FAILED": 1}.get(self.verdict, 2)

    @property
    def differences(self) -> int:
        """Breaches of rules of this project's choice (counted apart from failures)."""
        return sum(1 for r in self.results if r.status == DIFFERENCE)

    def headline(self) -> str:
        """The one line that ends every run."""
        cause = self.cause
        text = f"RESULT: {self.verdict}" + (f": {cause}" if cause else "")
        if self.differences:
            text += f" ({self.differences} differences from rules of this project's choice)"
        return text

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
        return {s: counts[s] for s in STATUSES}


def summary_table(suite: SuiteResult) -> str:
    """A plain-text table: one line per part x operation x check, with counts."""
    rows = suite.rows()
    headers = ("part", "operation", "check", "passed", "failed", "differences", "skipped",
               "no answer")  # fmt: skip
    lines = [
        (r.part, r.operation, r.check, str(r.passed), str(r.failed), str(r.differences),
         str(r.skipped), str(r.no_answer))
        for r in rows
    ]  # fmt: skip
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
        f"total: {totals[PASSED]} passed, {totals[FAILED]} failed, "
        f"{totals[DIFFERENCE]} differences, {totals[SKIPPED]} skipped, "
        f"{totals[NO_ANSWER]} no answer"
    )
    out.append(
        f"target: {suite.target}; spec version {suite.spec_version}; "
        f"duration {suite.duration_s:.1f} s"
    )
    return "\n".join(out)


def write_junit(suite: SuiteResult, path: Path) -> None:
    """One <testcase> per part x operation x check; a failure lists the first distinct details.
    Checks that got no answer, and a run that never started, are skipped cases, never failures."""
    rows = suite.rows()
    totals = suite.totals()
    root = ElementTree.Element("testsuites")
    skipped_rows = [r for r in rows if not r.failed and not r.passed and not r.differences]
    testsuite = ElementTree.SubElement(
        root,
        "testsuite",
        name="conformance",
        tests=str(len(rows) + (suite.not_run is not None)),
        failures=str(sum(1 for r in rows if r.failed)),
        skipped=str(len(skipped_rows) + (suite.not_run is not None)),
        time=f"{suite.duration_s:.3f}",
    )
    properties = ElementTree.SubElement(testsuite, "properties")
    facts = {"target": suite.target, "spec_version": suite.spec_version,
             "verdict": suite.verdict, "cause": suite.cause}  # fmt: skip
    for name, value in facts.items():
        ElementTree.SubElement(properties, "property", name=name, value=value)
    for status, count in totals.items():
        name = f"checks_{status.replace(' ', '_')}"
        ElementTree.SubElement(properties, "property", name=name, value=str(count))
    if suite.not_run is not None:
        case = ElementTree.SubElement(testsuite, "testcase", classname="preflight", name="(all)")
        ElementTree.SubElement(case, "skipped", message=f"NOT RUN: {suite.not_run}")
    for row in rows:
        case = ElementTree.SubElement(
            testsuite, "testcase", classname=f"{row.part}.{row.operation}", name=row.check
        )
        counts = (
            f"{row.passed} passed, {row.failed} failed, {row.differences} differences, "
            f"{row.skipped} skipped, {row.no_answer} no answer"
        )
        if row.failed:
            failure = ElementTree.SubElement(case, "failure", message=counts)
            failure.text = "\n\n".join(row.details)
        elif row.differences:
            ElementTree.SubElement(case, "properties").append(
                ElementTree.Element("property", name="differences", value="\n\n".join(row.details))
            )
        elif not row.passed:
            ElementTree.SubElement(case, "skipped", message="; ".join(row.details) or counts)
        ElementTree.SubElement(case, "system-out").text = counts
    path.parent.mkdir(parents=True, exist_ok=True)
    ElementTree.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
