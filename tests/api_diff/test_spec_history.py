"""The project's own history: every consecutive pair of commits of spec/openapi.yaml diffs
without a crash, and chosen commits give the findings their messages describe."""

from __future__ import annotations

import functools
import itertools
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from together_rl_api_diff import DiffReport, compare_documents, load_document

REPO = Path(__file__).resolve().parents[2]
SPEC = "spec/openapi.yaml"


def _git(*arguments: str) -> str:
    return subprocess.run(
        ["git", *arguments], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout


@functools.cache
def spec_commits() -> list[str]:
    return _git("log", "--format=%H", "--", SPEC).split()


@functools.cache
def diff(old: str, new: str) -> DiffReport:
    return compare_documents(
        load_document(f"{old}:{SPEC}", cwd=REPO), load_document(f"{new}:{SPEC}", cwd=REPO)
    )


def _has(revision: str) -> bool:
    found = subprocess.run(
        ["git", "cat-file", "-e", f"{revision}^{{commit}}"],
        cwd=REPO,
        capture_output=True,
        check=False,
    )
    return found.returncode == 0


def test_every_consecutive_pair_diffs_without_a_crash() -> None:
    if _git("rev-parse", "--is-shallow-repository").strip() == "true":
        pytest.skip("a shallow clone holds no history of spec/openapi.yaml")
    commits = spec_commits()
    assert len(commits) >= 10
    for newer, older in itertools.pairwise(commits):
        report = diff(older, newer)
        for change in report.changes:
            assert change.clients in ("breaking", "compatible")
            assert change.operations


def found(report: DiffReport) -> set[tuple[str, str, str, str]]:
    return {
        (c.kind, c.location.removeprefix("#/components/schemas/"), c.clients, c.servers)
        for c in report.changes
    }


CHOSEN = {
    # The SDK-agreement edit: tighter bounds and fewer enum values break clients; newly
    # required response fields break servers (a server that leaves them out).
    "4426877": {
        (
            "bound-tightened",
            "ModelResourcesCreate/properties/inactive_timeout",
            "breaking",
            "compatible",
        ),
        (
            "bound-tightened",
            "ModelResourcesExtendExpiry/properties/seconds",
            "breaking",
            "compatible",
        ),
        ("enum-value-removed", "SessionStatus", "breaking", "compatible"),
        ("enum-value-removed", "GpuType", "compatible", "breaking"),
        ("property-became-required", "SessionError/properties/code", "compatible", "breaking"),
        (
            "default-added",
            "ModelResourcesCreate/properties/inactive_timeout",
            "compatible",
            "breaking",
        ),
    },
    # The loss-input rules as x- keywords: new rules a client's request must follow.
    "0079b49": {
        ("rule-added", "LossFnInputs", "breaking", "compatible"),
        ("rule-added", "LossType", "breaking", "compatible"),
        ("rule-added", "GRPOLossParams/properties/beta", "breaking", "compatible"),
    },
}


@pytest.mark.parametrize("commit", sorted(CHOSEN))
def test_chosen_commits(commit: str) -> None:
    if not _has(commit):
        pytest.skip(f"{commit} is not in this clone's history")
    assert CHOSEN[commit] <= found(diff(f"{commit}^", commit))


def test_the_whole_api_commit_adds_twelve_operations_that_break_only_servers() -> None:
    commit = "95d0b8d"
    if not _has(commit):
        pytest.skip(f"{commit} is not in this clone's history")
    added = [c for c in diff(f"{commit}^", commit).changes if c.kind == "operation-added"]
    assert len(added) == 12
    assert {(c.clients, c.servers) for c in added} == {("compatible", "breaking")}
    assert "POST /rl/model-resources/{model_resources_id}/extend-expiry" in {c.new for c in added}


def _resource_every_rule(node: Any) -> int:
    """Set `x-source: emulator` beside every rule keyword (replacing any source); count them."""
    count = 0
    if isinstance(node, dict):
        if "x-source" in node or any(k in node for k in ("minimum", "maximum", "enum", "default")):
            node["x-source"] = "emulator"
            count += 1
        for value in node.values():
            count += _resource_every_rule(value)
    elif isinstance(node, list):
        for value in node:
            count += _resource_every_rule(value)
    return count


def test_an_x_source_only_edit_is_no_change(tmp_path: Path) -> None:
    spec = load_document(SPEC, cwd=REPO)
    edited = json.loads(json.dumps(spec.root))
    assert _resource_every_rule(edited) > 20
    (tmp_path / "edited.json").write_text(json.dumps(edited), encoding="utf-8")
    report = compare_documents(spec, load_document("edited.json", cwd=tmp_path))
    assert report.changes == []
