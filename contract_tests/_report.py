"""The human-readable report, ``reports/conformance.md``."""

from __future__ import annotations

from pathlib import Path

from contract_tests._results import SuiteResult


def write_markdown(suite: SuiteResult, path: Path) -> None:
    totals = suite.totals()
    verdict = "FAILED" if suite.failed else "PASSED"
    lines = [
        "# Conformance report",
        "",
        f"- Target: `{suite.target}`",
        f"- Verdict: **{verdict}** ({totals['passed']} passed, {totals['failed']} failed, "
        f"{totals['skipped']} skipped check applications)",
        f"- Duration: {suite.duration_s:.1f} s",
        "",
        "## Summary (part x operation x check)",
        "",
        "| part | operation | check | passed | failed | skipped |",
        "|---|---|---|---:|---:|---:|",
    ]
    rows = suite.rows()
    for row in rows:
        mark = " **FAILED**" if row.failed else ""
        lines.append(
            f"| {row.part} | `{row.operation}` | {row.check}{mark} | {row.passed} | "
            f"{row.failed} | {row.skipped} |"
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
    skipped = [row for row in rows if row.skipped and row.details and not row.failed]
    if skipped:
        lines += ["", "## Skipped, and why", ""]
        for row in skipped:
            lines.append(f"- `{row.operation}` / {row.check}: {'; '.join(row.details)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
