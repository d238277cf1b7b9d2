"""The worked example of docs/api-changes.md: `together-rl-sdk-drift` against what the
rollouts-estimate reference page states (docs/examples/rollouts-estimate-reference.yaml), scoped
to the estimate, before the adoption (the spec without the path) and after (the spec)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from together_rl_api_diff._drift_formats import render_drift
from together_rl_api_diff._drift_report import DriftReport, drift_of
from together_rl_api_diff._upstream import read_upstream
from together_rl_spec import load_document

REPO = Path(__file__).resolve().parents[2]
REFERENCE = REPO / "docs" / "examples" / "rollouts-estimate-reference.yaml"
DOCS = REPO / "docs" / "api-changes.md"
SCOPE = "/rl/rollouts/estimate"


def drift(spec_path: Path) -> DriftReport:
    spec = load_document(str(spec_path), cwd=REPO)
    return drift_of(read_upstream([str(REFERENCE)], spec), scope=SCOPE)


def before(tmp_path: Path) -> Path:
    root = yaml.safe_load((REPO / "spec" / "openapi.yaml").read_text(encoding="utf-8"))
    del root["paths"][SCOPE]
    (tmp_path / "before.json").write_text(json.dumps(root), encoding="utf-8")
    return tmp_path / "before.json"


def test_before_the_adoption_the_operation_is_behind(tmp_path: Path) -> None:
    report = drift(before(tmp_path))
    assert [f.change.kind for f in report.group("behind")] == ["operation-added"]
    assert report.group("ahead") == [] and report.group("differ") == []


def test_after_it_only_our_own_choices_are_ahead() -> None:
    report = drift(REPO / "spec" / "openapi.yaml")
    assert report.group("behind") == [] and report.group("differ") == []
    ahead = {f.change.location.rsplit("/", 1)[-1] for f in report.group("ahead")}
    assert {"lora_enabled", "num_generator_replicas", "sampling_only", "gpu_type"} <= ahead
    # every bound the page states is the spec's: none differs, none is missing
    assert not [f for f in report.findings if "imum" in f.change.kind or "Length" in f.change.kind]


def test_the_documented_tables_are_the_commands(tmp_path: Path) -> None:
    documented = DOCS.read_text(encoding="utf-8")
    for spec_path in (before(tmp_path), REPO / "spec" / "openapi.yaml"):
        rows = [r for r in render_drift(drift(spec_path), "markdown").splitlines() if r[:2] == "| "]
        for row in rows[2:]:
            assert row in documented, f"docs/api-changes.md lacks the row {row!r}"
