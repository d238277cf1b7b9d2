"""`together-rl-sdk-drift` reports the request examples of the API reference: one the spec lacks
(`request-example-added`, behind) and one the spec adopted (`x-source: docs:<page>`) that the
page no longer shows (`request-example-removed`, ahead). Against the pages' examples as
published (docs/examples/reference-request-examples.yaml) the spec has none of either."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from together_rl_api_diff._drift_report import DriftFinding, drift_of
from together_rl_api_diff._sdk_drift import main as sdk_drift_main
from together_rl_api_diff._upstream import read_upstream
from together_rl_spec import load_document

REPO = Path(__file__).resolve().parents[2]
REFERENCE = REPO / "docs" / "examples" / "reference-request-examples.yaml"
SPEC = REPO / "spec" / "openapi.yaml"
SAMPLE = "/rl/training-sessions/{session_id}/operations/sample"
EXTEND = "/rl/model-resources/{model_resources_id}/extend-expiry"
KINDS = ("request-example-added", "request-example-removed")


def _load(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return loaded


def _written(tmp_path: Path, name: str, root: dict[str, Any]) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(root), encoding="utf-8")
    return path


def example_findings(spec: Path, upstream: Path) -> list[DriftFinding]:
    document = load_document(str(spec), cwd=REPO)
    report = drift_of(read_upstream([str(upstream)], document))
    return [f for f in report.findings if f.change.kind in KINDS]


def test_every_published_example_is_adopted() -> None:
    assert example_findings(SPEC, REFERENCE) == []


def test_the_reference_document_holds_the_specs_published_examples() -> None:
    """Each example the spec sources to a page is that page's example in the document."""
    spec, reference = _load(SPEC), _load(REFERENCE)
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "requestBody" not in operation:
                continue
            examples = operation["requestBody"]["content"]["application/json"].get("examples", {})
            for example in examples.values():
                source = str(example.get("x-source", ""))
                if not source.startswith("docs:"):
                    continue
                page = source.removeprefix("docs:post-training/")
                published = reference["paths"][path][method]["requestBody"]["content"]
                assert (
                    published["application/json"]["examples"][page]["value"] == (example["value"])
                ), (path, method)


def test_an_example_the_spec_lacks_is_behind(tmp_path: Path) -> None:
    spec = _load(SPEC)
    del spec["paths"][SAMPLE]["post"]["requestBody"]["content"]["application/json"]["examples"]
    findings = example_findings(_written(tmp_path, "spec.json", spec), REFERENCE)
    assert [(f.group, f.change.kind) for f in findings] == [("behind", "request-example-added")]
    finding = findings[0]
    assert finding.change.operations == ["POST /v1" + SAMPLE.replace("{session_id}", "{}")]
    assert "operations-sample-create" in finding.change.message
    assert finding.change.new["sampling_params"]["stop"] == ["\n", "END"]
    assert not finding.change.breaking and finding.explained is None


def test_a_changed_page_shows_both_sides(tmp_path: Path) -> None:
    reference = _load(REFERENCE)
    media = reference["paths"][EXTEND]["post"]["requestBody"]["content"]["application/json"]
    media["examples"]["model-resources-extend-expiry"]["value"] = {"seconds": 3600}
    findings = example_findings(SPEC, _written(tmp_path, "reference.json", reference))
    seen = sorted((f.group, f.change.kind, f.source) for f in findings)
    assert seen == [
        ("ahead", "request-example-removed", "docs:post-training/model-resources-extend-expiry"),
        ("behind", "request-example-added", None),
    ]


@pytest.mark.parametrize(
    ("seconds", "found"),
    [(7200, []), (3600, ["request-example-added", "request-example-removed"])],
)
def test_a_page_without_examples_shows_its_field_examples(
    tmp_path: Path, seconds: int, found: list[str]
) -> None:
    """A page whose document has no request example shows the one its field examples build."""
    reference = copy.deepcopy(_load(REFERENCE))
    reference["paths"] = {EXTEND: reference["paths"][EXTEND]}
    media = reference["paths"][EXTEND]["post"]["requestBody"]["content"]["application/json"]
    del media["examples"]
    media["schema"] = {
        "type": "object",
        "required": ["seconds"],
        "properties": {"seconds": {"type": "integer", "example": seconds}},
    }
    findings = example_findings(SPEC, _written(tmp_path, "reference.json", reference))
    assert sorted(f.change.kind for f in findings) == found


def test_an_sdk_release_states_no_examples() -> None:
    document = load_document(str(SPEC), cwd=REPO)
    report = drift_of(read_upstream(["together==3.1.1"], document))
    assert not [f for f in report.findings if f.change.kind in KINDS]


def test_the_command_checks_only_the_examples(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--only examples --fail-on drift`: clean today (exit 0); a published example the spec
    lacks fails it (exit 1), naming the page's example."""
    arguments = [str(REFERENCE), "--only", "examples", "--fail-on", "drift"]
    assert sdk_drift_main([*arguments, "--spec", str(SPEC)]) == 0
    assert "clean: the spec agrees" in capsys.readouterr().out
    spec = _load(SPEC)
    del spec["paths"][SAMPLE]["post"]["requestBody"]["content"]["application/json"]["examples"]
    edited = _written(tmp_path, "spec.json", spec)
    assert sdk_drift_main([*arguments, "--spec", str(edited)]) == 1
    out = capsys.readouterr().out
    assert "request example operations-sample-create has no equal in the spec" in out
    assert "upstream has, we lack (the spec is behind): 1" in out
