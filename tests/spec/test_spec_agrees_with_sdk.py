"""The spec against the official SDK `together==3.1.1`, by introspection of its RL surface.

For every RL operation: the endpoint (method and path), the request params (names, required,
types, Literal enums: the TypedDicts of `*_params.py`) and the response models (pydantic fields,
required, enums) must equal the spec's. This is `together-rl-sdk-drift`'s own report
(`together_rl_api_diff._drift_report`), run on the release installed in the venv. The explained
differences are the command's (`SDK_EXPLAINED`, one place): each says why, and one that no
longer matches anything fails.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest
from ci_policy import import_required
from together_rl_api_diff import load_document
from together_rl_api_diff._drift_report import DriftReport, drift_of
from together_rl_api_diff._sdk_drift import main
from together_rl_api_diff._sdk_surface import sdk_surface
from together_rl_api_diff._upstream import SDK_EXPLAINED, sdk_upstream

import_required("together", "3.1.1")

REPO = Path(__file__).resolve().parents[2]


@functools.cache
def surface() -> dict[str, Any]:
    return sdk_surface("together==3.1.1")


def drift(spec_path: str = "spec/openapi.yaml", cwd: Path = REPO) -> DriftReport:
    return drift_of(sdk_upstream(surface(), load_document(spec_path, cwd=cwd)))


def test_the_spec_agrees_with_the_sdk_beyond_the_explained_differences() -> None:
    report = drift()
    found = [f.change.message for f in report.drift]
    assert found == [], "the spec and together==3.1.1 differ:\n" + "\n".join(found)
    used = {finding.explained for finding in report.explained}
    assert used == set(SDK_EXPLAINED.values()), "explanations that match nothing any more"


def test_the_surface_is_the_whole_rl_api_of_the_release() -> None:
    found = surface()
    assert found["namespace"] == "client.post_training"
    typed = [
        o for o in found["operations"] if o["path"].startswith("/v1/rl/") and not o.get("untyped")
    ]
    assert len(typed) == 29
    forward_backward = next(o for o in typed if o["path"].endswith("operations/forward-backward"))
    assert forward_backward["method"] == "post"
    assert forward_backward["body"]["required"] == ["loss", "samples"]
    assert {
        "in": "header",
        "name": "Idempotency-Key",
        "required": True,
        "schema": {"type": "string"},
    } in forward_backward["parameters"]


def test_drift_in_the_spec_is_found(tmp_path: Path) -> None:
    """The check can fail: a spec with one more status value and one less required field."""
    spec = load_document("spec/openapi.yaml", cwd=REPO)
    root = json.loads(json.dumps(spec.root))
    root["components"]["schemas"]["SessionStatus"]["enum"].append("TRAINING_SESSION_STATUS_PAUSED")
    root["components"]["schemas"]["SessionError"]["required"].remove("code")
    (tmp_path / "drifted.json").write_text(json.dumps(root), encoding="utf-8")
    report = drift("drifted.json", tmp_path)
    found = {(f.group, f.change.kind, f.change.location.rsplit("/", 1)[-1]) for f in report.drift}
    assert found == {
        ("ahead", "enum-value-removed", "SessionStatus"),
        ("behind", "property-became-required", "code"),
    }


def test_the_drift_command_a_maintainer_runs_is_clean(capsys: pytest.CaptureFixture[str]) -> None:
    """`make sdk-drift SDK=together==3.1.1`: exit 0, nothing breaking, no version advice; the
    `payload_id` entries and the rollout estimate listed as explained (the installed release is
    read, no registry)."""
    spec = str(REPO / "spec" / "openapi.yaml")
    assert main(["together==3.1.1", "--spec", spec, "--offline", "--fail-on", "breaking"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == (
        "clean: the spec agrees with together==3.1.1 beyond the explained differences; "
        "nothing breaking, no version advice"
    )
    assert "semver" not in out and "bumped" not in out
    explained = [line for line in out.splitlines() if line.startswith("  - ")]
    assert sum(".payload_id: " in line for line in explained) == 5
    assert sum("/rl/rollouts/estimate" in line for line in explained) == 1
    assert sum("OperationStatusValue" in line for line in explained) == 1
    assert len(explained) == 7
    assert main(["together==3.1.1", "--spec", spec, "--offline", "--fail-on", "drift"]) == 0
