"""The report cannot lie: verdicts, exit codes, expected failures (a stale entry fails), and the
JSON, markdown and JUnit renderings."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

from together_rl_client_kit import (
    KitReport,
    ScenarioResult,
    apply_expected_failures,
    read_expected_failures,
    render,
)
from together_rl_client_kit.__main__ import main


def _report() -> KitReport:
    return KitReport(
        "d",
        [
            ScenarioResult("a", "MUST", "PASS", "held: r"),
            ScenarioResult("b", "MUST", "FAIL", "same-key-on-retry: two keys"),
            ScenarioResult("c", "SHOULD", "FAIL", "honour-retry-after: early"),
            ScenarioResult("d", "MUST", "NOT_SUPPORTED", "no caller-idempotency-key"),
        ],
    )


def test_exit_code_is_zero_only_when_every_must_passes() -> None:
    assert _report().exit_code() == 1
    only_should = KitReport(
        "d", [ScenarioResult("a", "MUST", "PASS", ""), ScenarioResult("c", "SHOULD", "FAIL", "")]
    )
    assert only_should.exit_code() == 0


def test_expected_failures_excuse_failures_and_a_stale_entry_fails(tmp_path: Path) -> None:
    listed = tmp_path / "expected.txt"
    listed.write_text("# known\nb  # two keys, tracked upstream\nd\n")
    report = _report()
    apply_expected_failures(report, read_expected_failures(listed))
    assert report.exit_code() == 1  # d is NOT_SUPPORTED: not excused, not stale
    report = _report()
    report.scenarios[3] = ScenarioResult("d", "MUST", "PASS", "")
    apply_expected_failures(report, {"b": "", "d": "", "zz": ""})
    assert report.stale_expected_failures == ["d", "zz (no such scenario)"]
    assert report.exit_code() == 1
    report = _report()
    report.scenarios[3] = ScenarioResult("d", "MUST", "PASS", "")
    apply_expected_failures(report, {"b": ""})
    assert report.exit_code() == 0


def test_json_markdown_and_junit() -> None:
    report = _report()
    document = json.loads(render(report, "json"))
    assert [s["verdict"] for s in document["scenarios"]] == [
        "PASS",
        "FAIL",
        "FAIL",
        "NOT_SUPPORTED",
    ]
    assert document["exit_code"] == 1
    assert "| `b` | MUST | FAIL | 0.00 | same-key-on-retry: two keys |" in render(
        report, "markdown"
    )
    suite = ElementTree.fromstring(render(report, "junit"))
    assert suite.get("failures") == "2" and suite.get("skipped") == "1"


def test_cli_lists_scenarios_and_refuses_without_a_driver(capsys: object) -> None:
    assert main(["--list"]) == 0
    assert main([]) == 2
