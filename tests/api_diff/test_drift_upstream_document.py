"""`together-rl-sdk-drift` against Together's own OpenAPI document (the internal spec of
2026-08-17 in ../shared/reference/upstream, beside the clone) and against our spec rewritten in
the newer reference pages' form: the counts docs/api-changes.md states are the command's."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import yaml
from ci_policy import missing
from together_rl_api_diff._drift_formats import render_drift
from together_rl_api_diff._drift_report import GROUPS, DriftReport, drift_of
from together_rl_api_diff._sdk_drift import main
from together_rl_api_diff._upstream import read_upstream
from together_rl_spec import load_document

REPO = Path(__file__).resolve().parents[2]
UPSTREAM = REPO.parent / "shared" / "reference" / "upstream" / "together-internal-2026-08-17.json"
DOCS = REPO / "docs" / "api-changes.md"


@functools.cache
def report() -> DriftReport:
    if not UPSTREAM.is_file():
        missing(f"{UPSTREAM} is not there (../shared beside the clone)")
    spec = load_document("spec/openapi.yaml", cwd=REPO)
    return drift_of(read_upstream([str(UPSTREAM)], spec))


def test_the_documented_counts_are_the_commands() -> None:
    """docs/api-changes.md carries the report's table row for row."""
    table = [
        line for line in render_drift(report(), "markdown").splitlines() if line.startswith("| ")
    ]
    documented = DOCS.read_text(encoding="utf-8")
    for row in table[2:]:
        assert row in documented, f"docs/api-changes.md lacks the row {row!r}: rerun and update"
    counts = re.findall(r"^\| (.+?) \| (\d+) \|", documented, re.MULTILINE)
    assert {title: int(n) for title, n in counts if title in GROUPS.values()} == {
        GROUPS[name]: len(report().group(name)) for name in GROUPS
    }


def test_the_internal_names_are_paired_and_its_age_shows() -> None:
    found = report()
    assert found.outside == (0, 0)
    assert {(p.ours, p.theirs) for p in found.pairs} >= {
        ("Sample", "RL.TrainingSample"),
        ("Session", "RL.TrainingSession"),
        ("SessionCreate", "RL.StartTrainingSessionRequest"),
    }
    messages = {f.group: [] for f in found.findings}
    for finding in found.findings:
        messages[finding.group].append(finding.change.message)
    # older than together==3.1.1: an operations/forward, loss_inputs; no extend-expiry
    assert any("operations/forward added" in m for m in messages["behind"])
    assert any(m.startswith("Sample.loss_inputs: required property") for m in messages["behind"])
    assert any("extend-expiry removed" in m for m in messages["ahead"])
    # no Idempotency-Key on any RL path: ours is the SDK's
    idempotency = [f for f in found.group("ahead") if "Idempotency-Key removed" in f.change.message]
    assert len(idempotency) == 7
    assert all((f.source or "").startswith("together==3.1.1 ") for f in idempotency)
    # every error status of ours is covered by its `default` answer: none reported (only the
    # Retry-After headers of ours, which that answer does not declare)
    kinds = {f.change.kind for f in found.findings if f.change.kind.startswith("response-")}
    assert kinds == {"response-header-removed"}
    headers = {f.change.detail for f in found.findings if f.change.kind.startswith("response-")}
    assert headers == {"header:retry-after"}


def test_our_spec_in_the_reference_pages_form_is_no_change(tmp_path: Path) -> None:
    """Server https://api.together.ai, paths /v1/rl/...: the same URLs, so nothing differs."""
    root = yaml.safe_load((REPO / "spec" / "openapi.yaml").read_text(encoding="utf-8"))
    root["servers"] = [{"url": "https://api.together.ai"}]
    root["paths"] = {f"/v1{path}": item for path, item in root["paths"].items()}
    (tmp_path / "reference-form.json").write_text(json.dumps(root), encoding="utf-8")
    spec = str(REPO / "spec" / "openapi.yaml")
    assert main([str(tmp_path / "reference-form.json"), "--spec", spec, "--fail-on", "drift"]) == 0
