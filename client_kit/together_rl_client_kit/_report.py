"""The kit's report: per scenario PASS, FAIL, NOT_SUPPORTED, NOT_RUN or KIT_ERROR (the kit itself
failed: its traceback is the message), as markdown, JSON (the stable interface for CI) or JUnit
XML; the exit code; the expected-failures file."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

__all__ = [
    "KIT_ERROR",
    "VERDICTS",
    "KitReport",
    "ScenarioResult",
    "apply_expected_failures",
    "read_expected_failures",
    "render",
]

#: The kit failed on a scenario (not the driver): the run exits 2, as when the kit cannot run.
KIT_ERROR = "KIT_ERROR"
VERDICTS = ("PASS", "FAIL", "NOT_SUPPORTED", "NOT_RUN", KIT_ERROR)


@dataclass
class ScenarioResult:
    id: str
    level: str
    verdict: str
    message: str
    title: str = ""
    expected_failure: bool = False
    rules: tuple[str, ...] = ()
    failed_rules: tuple[str, ...] = ()
    seconds: float = 0.0
    # of `seconds`, the waits the scenario's faults asked for (Retry-After, retry-after-ms,
    # an HTTP date: 1-2 s, by the second's phase): what any client spends, not its own time
    scripted_wait: float = 0.0


@dataclass
class KitReport:
    driver: str
    scenarios: list[ScenarioResult]
    duration_s: float = 0.0
    stale_expected_failures: list[str] = field(default_factory=list)
    problem: str | None = None

    def counts(self) -> dict[str, int]:
        return {v: sum(1 for s in self.scenarios if s.verdict == v) for v in VERDICTS}

    def must_failures(self) -> list[ScenarioResult]:
        """MUST scenarios that did not pass and were not expected to fail."""
        return [
            s
            for s in self.scenarios
            if s.level == "MUST" and s.verdict != "PASS" and not s.expected_failure
        ]

    def exit_code(self) -> int:
        """0 only when every MUST passed (or is an expected failure that still fails) and no
        expected-failures entry is stale."""
        if self.problem is not None:
            return 2
        return 1 if self.must_failures() or self.stale_expected_failures else 0

    def summary(self) -> str:
        counts = ", ".join(f"{n} {v}" for v, n in self.counts().items() if n)
        verdict = "PASSED" if self.exit_code() == 0 else "FAILED"
        lines = [f"client kit: {verdict}: driver {self.driver}: {counts} ({self.duration_s:.1f} s)"]
        lines += [
            f"  stale expected failure (it no longer fails): {s}"
            for s in self.stale_expected_failures
        ]
        if self.problem:
            lines.append(f"  {self.problem}")
        return "\n".join(lines)


def read_expected_failures(path: Path) -> dict[str, str]:
    """One scenario id per line, optionally followed by `# reason`; blank lines and lines
    starting with `#` are ignored."""
    entries: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        text, _, reason = line.partition("#")
        if text.strip():
            entries[text.strip()] = reason.strip()
    return entries


def apply_expected_failures(report: KitReport, expected: dict[str, str]) -> None:
    """Mark the listed scenarios that failed; list the entries that no longer fail (stale)."""
    by_id = {s.id: s for s in report.scenarios}
    for scenario_id in expected:
        result = by_id.get(scenario_id)
        if result is None:
            report.stale_expected_failures.append(f"{scenario_id} (no such scenario)")
        elif result.verdict == "FAIL":
            result.expected_failure = True
        elif result.verdict == "PASS":
            report.stale_expected_failures.append(scenario_id)


def render(report: KitReport, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(_as_json(report), indent=2) + "\n"
    if fmt == "junit":
        return _as_junit(report)
    return _as_markdown(report)


def _as_json(report: KitReport) -> dict[str, object]:
    return {
        "driver": report.driver,
        "scenarios": [
            {
                "id": s.id,
                "level": s.level,
                "verdict": s.verdict,
                "message": s.message,
                **({"expected_failure": True} if s.expected_failure else {}),
            }
            for s in report.scenarios
        ],
        "stale_expected_failures": report.stale_expected_failures,
        "exit_code": report.exit_code(),
    }


def _as_markdown(report: KitReport) -> str:
    lines = [
        f"# Client kit: {report.driver}",
        "",
        report.summary().replace("\n", "  \n"),
        "",
        "| scenario | level | verdict | seconds | evidence |",
        "|---|---|---|---:|---|",
    ]
    for s in report.scenarios:
        verdict = s.verdict + (" (expected)" if s.expected_failure else "")
        message = s.message.split("\n", 1)[0].replace("|", "\\|")
        lines.append(f"| `{s.id}` | {s.level} | {verdict} | {s.seconds:.2f} | {message} |")
    details = [s for s in report.scenarios if s.verdict in ("FAIL", KIT_ERROR)]
    if details:
        lines += ["", "## Failures", ""]
        for s in details:
            lines += [f"### `{s.id}`", "", "```", s.message, "```", ""]
    return "\n".join(lines) + "\n"


def _as_junit(report: KitReport) -> str:
    suite = ElementTree.Element(
        "testsuite",
        name=f"together-rl-client-kit {report.driver}",
        tests=str(len(report.scenarios)),
        failures=str(
            sum(1 for s in report.scenarios if s.verdict == "FAIL" and not s.expected_failure)
        ),
        errors=str(sum(1 for s in report.scenarios if s.verdict == KIT_ERROR)),
        skipped=str(sum(1 for s in report.scenarios if s.verdict in ("NOT_SUPPORTED", "NOT_RUN"))),
        time=f"{report.duration_s:.3f}",
    )
    for s in report.scenarios:
        case = ElementTree.SubElement(suite, "testcase", classname=s.level, name=s.id)
        if s.verdict == "FAIL" and not s.expected_failure:
            ElementTree.SubElement(
                case, "failure", message=s.message.split("\n", 1)[0]
            ).text = s.message
        elif s.verdict == KIT_ERROR:
            ElementTree.SubElement(case, "error", message="the kit failed").text = s.message
        elif s.verdict != "PASS":
            label = "expected failure" if s.expected_failure else s.verdict
            ElementTree.SubElement(case, "skipped", message=f"{label}: {s.message[:300]}")
    for stale in report.stale_expected_failures:
        case = ElementTree.SubElement(suite, "testcase", classname="expected-failures", name=stale)
        ElementTree.SubElement(case, "failure", message="the expected failure no longer fails")
    return ElementTree.tostring(suite, encoding="unicode") + "\n"
