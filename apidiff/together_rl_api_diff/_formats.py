"""The report in each output format: text, markdown (a changelog entry), json, junit, github."""

from __future__ import annotations

import json
from collections.abc import Callable
from xml.sax.saxutils import quoteattr

from ._changes import Change, DiffReport
from ._impact import Impact

__all__ = ["FORMATS", "render", "render_changelog_entry"]


def _operations(change: Change, limit: int = 4) -> str:
    shown = ", ".join(change.operations[:limit])
    more = len(change.operations) - limit
    return shown + (f" and {more} more" if more > 0 else "")


def _audience(change: Change) -> str:
    return f"clients: {change.clients}, servers: {change.servers}"


def _semver_line(report: DiffReport) -> str:
    semver = report.semver
    if semver.required == "none":
        return "semver: no change of the API, no bump required"
    verdict = {True: "bumped enough", False: "NOT bumped enough", None: "not MAJOR.MINOR.PATCH"}
    return (
        f"semver: {semver.required} change: {semver.old_version} -> at least "
        f"{semver.suggested or '?'}; info.version is {semver.new_version} "
        f"({verdict[semver.ok]})"
    )


def _summary(report: DiffReport) -> str:
    clients = sum(change.clients == "breaking" for change in report.changes)
    servers = sum(change.servers == "breaking" for change in report.changes)
    undecided = sum(change.undecided for change in report.changes)
    return (
        f"{len(report.changes)} changes from {report.old_source} to {report.new_source}: "
        f"{clients} break clients, {servers} break servers"
        + (f", {undecided} not judged" if undecided else "")
    )


def _text(report: DiffReport, impacts: list[Impact] | None) -> str:
    lines = [_summary(report), _semver_line(report)]
    for change in report.changes:
        lines.append(
            f"[{_audience(change)}] {change.message}  <{_operations(change)}>  id={change.id}"
        )
    if impacts:
        lines.append("")
        lines.append("What moves in this project:")
        for impact in impacts:
            lines.append(f"- {impact.change.message}")
            if impact.generated:
                lines.append(f"    generated/: {'; '.join(impact.generated)}")
            if impact.wrapper:
                lines.append(f"    wrapper: {'; '.join(impact.wrapper)}")
            lines.append(f"    look at: {impact.row.follow}")
    return "\n".join(lines) + "\n"


_SECTIONS: tuple[tuple[str, Callable[[Change], bool]], ...] = (
    ("Breaking for clients", lambda c: c.clients == "breaking"),
    ("Breaking for servers only", lambda c: c.clients != "breaking" and c.servers == "breaking"),
    ("Not judged (a person must look)", lambda c: c.undecided),
    ("Compatible", lambda c: not c.breaking and not c.undecided),
)


def _markdown_body(report: DiffReport) -> list[str]:
    lines = []
    for title, belongs in _SECTIONS:
        selected = [change for change in report.changes if belongs(change)]
        if not selected:
            continue
        lines += ["", f"### {title}", ""]
        lines += [f"- {change.message} ({_operations(change)})" for change in selected]
    return lines


def render_changelog_entry(report: DiffReport) -> str:
    """`## VERSION` and the changes since the baseline the entry names."""
    semver = report.semver
    lines = [
        f"## {semver.new_version}",
        "",
        f"Baseline: `{report.old_source}` (info.version {semver.old_version}). "
        f"{len(report.changes)} changes; required bump: {semver.required}"
        f"{' (0.x: one level lower)' if semver.old_version.startswith('0.') else ''}.",
    ]
    lines += _markdown_body(report)
    return "\n".join(lines) + "\n"


def _markdown(report: DiffReport, impacts: list[Impact] | None) -> str:
    lines = [
        f"# API changes: {report.old_source} -> {report.new_source}",
        "",
        _summary(report) + ".",
        "",
        _semver_line(report) + ".",
    ]
    lines += _markdown_body(report)
    if impacts:
        lines += [
            "",
            "### What moves in this project",
            "",
            "| change | generated/ | wrapper | look at |",
            "|---|---|---|---|",
        ]
        for impact in impacts:
            lines.append(
                f"| {impact.change.message} | {'; '.join(impact.generated) or '-'} | "
                f"{'; '.join(impact.wrapper) or '-'} | {impact.row.follow} |"
            )
    return "\n".join(lines) + "\n"


def _json(report: DiffReport, impacts: list[Impact] | None) -> str:
    document = report.as_json()
    if impacts:
        document["impact"] = [
            {
                "id": impact.change.id,
                "generated": impact.generated,
                "wrapper": impact.wrapper,
                "look_at": impact.row.follow,
            }
            for impact in impacts
        ]
    return json.dumps(document, indent=2) + "\n"


def _junit(report: DiffReport, impacts: list[Impact] | None) -> str:
    del impacts
    failures = len(report.breaking)
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuites name="api-diff" tests="{len(report.changes)}" failures="{failures}">',
        f'  <testsuite name={quoteattr(report.new_source)} tests="{len(report.changes)}" '
        f'failures="{failures}">',
    ]
    for change in report.changes:
        name = quoteattr(f"{change.location} {change.id}")
        head = f"    <testcase classname={quoteattr(change.kind)} name={name}"
        if change.breaking:
            lines.append(head + ">")
            lines.append(
                f"      <failure message={quoteattr(change.message)} "
                f"type={quoteattr(_audience(change))}>"
                f"{_operations(change, 50)}</failure>"
            )
            lines.append("    </testcase>")
        else:
            lines.append(head + "/>")
    lines += ["  </testsuite>", "</testsuites>"]
    return "\n".join(lines) + "\n"


def _github(report: DiffReport, impacts: list[Impact] | None) -> str:
    del impacts
    lines = []
    for change in report.changes:
        level = (
            "error"
            if change.clients == "breaking"
            else "warning"
            if change.breaking or change.undecided
            else "notice"
        )
        title = f"API change ({_audience(change)})"
        message = f"{change.message} [{_operations(change)}]".replace("\n", " ")
        lines.append(f"::{level} file={report.new_source.split(':')[-1]},title={title}::{message}")
    lines.append(f"::notice title=API diff::{_summary(report)}; {_semver_line(report)}")
    return "\n".join(lines) + "\n"


FORMATS: dict[str, Callable[[DiffReport, list[Impact] | None], str]] = {
    "text": _text,
    "markdown": _markdown,
    "json": _json,
    "junit": _junit,
    "github": _github,
}


def render(report: DiffReport, output_format: str, impacts: list[Impact] | None = None) -> str:
    return FORMATS[output_format](report, impacts)
