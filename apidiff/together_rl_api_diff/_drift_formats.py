"""The drift report in each output format: text, markdown, json."""

from __future__ import annotations

import json
from collections import Counter

from ._drift_report import GROUPS, DriftFinding, DriftReport
from ._sources import source_kind

__all__ = ["DRIFT_FORMATS", "render_drift"]

_KIND_NAMES = {
    "sdk": "an official SDK release",
    "openapi": "an OpenAPI document",
    "revision": "the spec at another revision",
}


def _source_label(finding: DriftFinding) -> str:
    if finding.source is None:
        return "no rule of ours" if finding.group == "behind" else "shape (no x-source)"
    kinds = {source_kind(part) or "other" for part in finding.source.split("; ")}
    return "+".join(sorted(kinds))


def _source_counts(findings: list[DriftFinding]) -> str:
    counts = Counter(_source_label(finding) for finding in findings)
    return ", ".join(f"{kind} {count}" for kind, count in counts.most_common())


def _line(finding: DriftFinding) -> str:
    change = finding.change
    shown = ", ".join(change.operations[:3])
    more = len(change.operations) - 3
    where = shown + (f" and {more} more" if more > 0 else "")
    source = f"  [x-source: {finding.source}]" if finding.source else ""
    breaking = "  (breaks clients)" if change.clients == "breaking" else ""
    return f"{change.message}{breaking}  <{where}>{source}"


def _header(report: DriftReport) -> list[str]:
    renamed = [pair for pair in report.pairs if pair.renamed]
    lines = [
        f"drift of {report.spec} (info.version {report.spec_version}) against {report.upstream} "
        f"({_KIND_NAMES.get(report.kind, report.kind)})",
        f"scope: URL paths containing {report.scope}; outside it (not compared): "
        f"{report.outside[0]} operations upstream, {report.outside[1]} of ours",
        f"schemas paired by use: {len(report.pairs)}, {len(renamed)} of them named otherwise"
        + (": " + ", ".join(f"{p.ours} = {p.theirs}" for p in renamed) if renamed else ""),
    ]
    lines += [f"note: {note}" for note in report.notes]
    return lines


def _verdict(report: DriftReport) -> str:
    if not report.drift:
        return (
            f"clean: the spec agrees with {report.upstream}"
            + (" beyond the explained differences" if report.explained else "")
            + "; nothing breaking, no version advice"
        )
    semver = report.semver
    assert semver is not None
    return (
        f"drift: {len(report.drift)} differences, {len(report.breaking)} of them breaking; "
        f"following the upstream would be a {semver.required} change of the spec "
        f"({semver.old_version} -> {semver.suggested or '?'})"
    )


def _text(report: DriftReport) -> str:
    lines = _header(report)
    for name, title in GROUPS.items():
        found = report.group(name)
        counts = f" ({_source_counts(found)})" if found else ""
        lines.append(f"{title}: {len(found)}{counts}")
        lines += [f"  - {_line(finding)}" for finding in found]
    lines.append(f"explained (known, not drift): {len(report.explained)}")
    lines += [f"  - {_line(f)}: {f.explained}" for f in report.explained]
    lines.append(_verdict(report))
    return "\n".join(lines) + "\n"


def _markdown(report: DriftReport) -> str:
    head = _header(report)
    lines = [f"# {head[0][0].upper()}{head[0][1:]}", "", *(f"- {line}" for line in head[1:])]
    lines += ["", "| group | findings | by our rule's source |", "|---|---|---|"]
    for name, title in GROUPS.items():
        found = report.group(name)
        lines.append(f"| {title} | {len(found)} | {_source_counts(found) or '-'} |")
    lines.append(f"| explained | {len(report.explained)} | - |")
    for name, title in GROUPS.items():
        found = report.group(name)
        if found:
            lines += ["", f"## {title[0].upper()}{title[1:]}", ""]
            lines += [
                f"- {_line(finding)}".replace("<", "`").replace(">", "`") for finding in found
            ]
    if report.explained:
        lines += ["", "## Explained", ""]
        lines += [f"- {f.change.message}: {f.explained}" for f in report.explained]
    lines += ["", _verdict(report) + "."]
    return "\n".join(lines) + "\n"


def _json(report: DriftReport) -> str:
    return json.dumps(report.as_json(), indent=2) + "\n"


DRIFT_FORMATS = {"text": _text, "markdown": _markdown, "json": _json}


def render_drift(report: DriftReport, output_format: str = "text") -> str:
    return DRIFT_FORMATS[output_format](report)
