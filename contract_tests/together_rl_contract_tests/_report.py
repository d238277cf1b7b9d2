"""The human-readable report, ``reports/conformance.md``."""

from __future__ import annotations

from pathlib import Path

from together_rl_contract_tests._results import DIFFERENCE, NO_ANSWER, SuiteResult

__all__ = ["write_markdown"]


def write_markdown(suite: SuiteResult, path: Path) -> None:
    totals = suite.totals()
    verdict = f"**{suite.verdict}**"
    if suite.cause:
        verdict += f": {suite.cause}"
    lines = [
        "# Conformance report",
        "",
        f"- Target: `{suite.target}`",
        f"- Spec version: {suite.spec_version}",
        f"- Verdict: {verdict}",
        f"- Checks: {totals['passed']} passed, {totals['failed']} failed, "
        f"{totals[DIFFERENCE]} differences, {totals['skipped']} skipped, "
        f"{totals[NO_ANSWER]} no answer (check applications)",
        f"- Duration: {suite.duration_s:.1f} s",
    ]
    if suite.not_run is not None:
        lines += [
            "",
            "No check ran: the preflight (one read-only authenticated call) could not reach the "
            "target as this API. This says nothing about the target's conformance.",
        ]
    elif suite.verdict == "INTERRUPTED":
        lines += [
            "",
            f"The run was interrupted: {suite.cause}. The checks that got an answer are listed "
            "below; the others say nothing about the target's conformance.",
        ]
    rows = suite.rows()
    if rows:
        lines += [
            "",
            "## Summary (part x operation x check)",
            "",
            "| part | operation | check | passed | failed | differences | skipped | no answer |",
            "|---|---|---|---:|---:|---:|---:|---:|",
        ]
    for row in rows:
        mark = " **FAILED**" if row.failed else ""
        lines.append(
            f"| {row.part} | `{row.operation}` | {row.check}{mark} | {row.passed} | "
            f"{row.failed} | {row.differences} | {row.skipped} | {row.no_answer} |"
        )
    if suite.notes:
        lines += ["", "## Findings", ""]
        lines += [f"- {note}" for note in suite.notes]
    failing = [row for row in rows if row.failed]
    if failing:
        lines += ["", "## Failures", ""]
        for row in failing:
            lines += [f"### {row.part}: `{row.operation}` / {row.check}", ""]
            for detail in row.details:
                lines += ["```", detail.strip(), "```", ""]
    differing = [row for row in rows if row.differences]
    if differing:
        lines += [
            "",
            "## Differences from rules of this project's choice (not failures)",
            "",
            "The target breaks a rule whose `x-source` is `emulator`: this project chose it where "
            "the live API was never asked. Each is listed with the rule, its source and the "
            "evidence.",
            "",
        ]
        for row in differing:
            lines += [f"### {row.part}: `{row.operation}` / {row.check}", ""]
            for detail in row.details:
                lines += ["```", detail.strip(), "```", ""]
    unanswered = [row for row in rows if row.no_answer and not row.failed]
    if unanswered:
        lines += ["", "## No answer (not counted as failed)", ""]
        for row in unanswered:
            lines.append(f"- `{row.operation}` / {row.check}: {'; '.join(row.details)}")
    skipped = [
        row for row in rows if row.skipped and row.details and not row.failed and not row.no_answer
    ]
    if skipped:
        lines += ["", "## Skipped, and why", ""]
        for row in skipped:
            lines.append(f"- `{row.operation}` / {row.check}: {'; '.join(row.details)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
