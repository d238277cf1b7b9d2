"""The proxy's reports at exit: ``reports/proxy.md`` and ``reports/proxy.junit.xml``.

Both hold exchanges per operation, the violations (operation, field path, what is wrong), the
answers that broke HTTP with their defects, the live loss probe's results and the operations of
the spec the run never exercised. Neither holds a header or a body; the request lines and defect
texts they quote were redacted like the cassette, so neither can hold a key or a working URL.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from together_rl_contract_tests._spec import all_operations
from together_rl_contract_tests.proxy._exchange import Violation
from together_rl_contract_tests.proxy._traffic_monitor import TrafficMonitor

__all__ = ["summary_line", "write_junit", "write_markdown"]


def summary_line(monitor: TrafficMonitor) -> str:
    probes = monitor.checks.loss_probes
    return (
        f"proxy: {monitor.exchanges} exchanges, {len(monitor.violations)} violations, "
        f"{len(monitor.differences)} differences, "
        f"{len({d.seq for d in monitor.defects})} answers with defects, "
        f"{len(probes)} losses probed ({sum(p.matches_project for p in probes)} match the "
        f"project's definitions), {len(_unexercised(monitor))} operations not exercised"
    )


def _unexercised(monitor: TrafficMonitor) -> list[str]:
    return [op for op in all_operations() if op not in monitor.by_operation]


def _listed(violation: Violation) -> str:
    v = violation
    field = f" `{v.field}`" if v.field else ""
    rules = "; ".join(rule.describe() for rule in v.rules) if v.difference else ""
    return f"- #{v.seq} [{v.check}] `{v.operation}`{field}: {v.message}" + (
        f" (rule: {rules})" if rules else ""
    )


def write_markdown(monitor: TrafficMonitor, path: Path, upstream: str) -> None:
    lines = [
        "# Proxy report",
        "",
        f"- Upstream: `{upstream}`",
        f"- {summary_line(monitor).removeprefix('proxy: ')}",
        "",
        "## Exchanges per operation",
        "",
        "| operation | exchanges | statuses | violations | differences |",
        "|---|---:|---|---:|---:|",
    ]
    for operation in all_operations():
        counts = monitor.by_operation.get(operation)
        if counts is None:
            continue
        statuses = ", ".join(f"{code}: {n}" for code, n in sorted(counts.items()))
        broken = sum(v.operation == operation for v in monitor.violations)
        differ = sum(v.operation == operation for v in monitor.differences)
        lines.append(f"| `{operation}` | {counts.total()} | {statuses} | {broken} | {differ} |")
    sections = (
        ("Violations", monitor.violations),
        ("Differences from rules of this project's choice (not violations)", monitor.differences),
    )
    for title, found in sections:
        lines += ["", f"## {title}", ""]
        lines += [_listed(v) for v in found] or ["None."]
    lines += ["", "## Answers that broke HTTP, or that the record cut", ""]
    lines += [f"- #{d.seq} `{d.target}`: {d.what}" for d in monitor.defects] or ["None."]
    if monitor.relayed:
        relayed = f"Requests relayed to presigned URLs (recorded, not judged): {monitor.relayed}"
        lines += ["", relayed]
    lines += ["", "## Live loss probe", ""]
    probes = monitor.checks.loss_probes
    if probes:
        lines += [
            "| # | loss type | server | project's definition | matches |",
            "|---:|---|---:|---:|---|",
        ]
        for p in probes:
            lines.append(
                f"| {p.seq} | {p.loss_type} | {p.observed:.6g} | {p.expected:.6g} | "
                f"{', '.join(p.matched) or 'none'} |"
            )
    else:
        lines.append("No forward-backward result could be recomputed.")
    for reason, count in sorted(monitor.checks.loss_unprobed.items()):
        lines.append(f"- not probed ({count}): {reason}")
    lines += ["", "## Operations of the spec this run never exercised", ""]
    lines += [f"- `{op}`" for op in _unexercised(monitor)] or ["None."]
    if monitor.outside_spec:
        lines += ["", "## Requests to routes the spec does not have", ""]
        lines += [f"- `{target}`: {n}" for target, n in sorted(monitor.outside_spec.items())]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_junit(monitor: TrafficMonitor, path: Path) -> None:
    """One test case per operation of the spec: failed with its violations, skipped if unseen."""
    suite = ET.Element("testsuite", name="proxy")
    failures = skipped = 0
    for operation in all_operations():
        case = ET.SubElement(suite, "testcase", classname="proxy", name=operation)
        found = [v for v in monitor.violations if v.operation == operation]
        differ = [v for v in monitor.differences if v.operation == operation]
        if differ:
            ET.SubElement(ET.SubElement(case, "properties"), "property", name="differences",
                          value="\n".join(v.line() for v in differ))  # fmt: skip
        if operation not in monitor.by_operation:
            ET.SubElement(case, "skipped", message="not exercised by this run")
            skipped += 1
        elif found:
            failure = ET.SubElement(case, "failure", message=f"{len(found)} violations")
            failure.text = "\n".join(v.line() for v in found)
            failures += 1
    case = ET.SubElement(suite, "testcase", classname="proxy", name="upstream answers are HTTP")
    if monitor.defects:
        failure = ET.SubElement(case, "failure", message=f"{len(monitor.defects)} defects")
        failure.text = "\n".join(d.line() for d in monitor.defects)
        failures += 1
    suite.set("tests", str(len(suite)))
    suite.set("failures", str(failures))
    suite.set("skipped", str(skipped))
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)
