"""A change of spec/openapi.yaml comes with its info.version bump and its changelog entry.

The newest entry of docs/api-changelog.md names its baseline (a git revision of the spec); the
tool's entry for baseline -> today's spec must be exactly that entry (so it was written by the
tool, and no change since went unrecorded), and `info.version` must be bumped as the changes
require. An edit that changes nothing for clients or servers (an `x-source`, a description)
changes no entry. Refresh with `make api-changelog` after bumping `info.version`.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from _spec_edits import BASE, document, edited
from together_rl_api_diff import compare_documents, load_document
from together_rl_api_diff._changelog import latest_entry, write_entry
from together_rl_api_diff._formats import render_changelog_entry

REPO = Path(__file__).resolve().parents[2]
CHANGELOG = REPO / "docs" / "api-changelog.md"
SPEC = "spec/openapi.yaml"


def test_the_newest_entry_is_the_tools_and_the_version_is_bumped_enough() -> None:
    latest = latest_entry(CHANGELOG.read_text(encoding="utf-8"))
    assert latest is not None, "docs/api-changelog.md has no entry: run make api-changelog"
    version, baseline, body = latest
    spec = load_document("spec/openapi.yaml", cwd=REPO)
    assert version == spec.version, (
        f"info.version is {spec.version} but the newest changelog entry is {version}: "
        "bump info.version if the changes require it, then run make api-changelog"
    )
    report = compare_documents(load_document(baseline, cwd=REPO), spec)
    assert render_changelog_entry(report) == body, (
        "docs/api-changelog.md is stale: run make api-changelog"
    )
    assert report.semver.ok, (
        f"the changes since {baseline} need a {report.semver.required} bump: "
        f"info.version {spec.version} must be at least {report.semver.suggested}"
    )


def _git(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *arguments], cwd=REPO, capture_output=True, text=True, check=False
    )


def test_the_last_change_of_the_spec_comes_with_its_bump() -> None:
    """The spec against the one before it (an edit in progress: HEAD's; else the spec at the
    newest commit of main's line whose info.version is another, so that branches merged under
    one bump are judged together): a change that breaks clients needs the bump it requires."""
    if _git("rev-parse", "--is-shallow-repository").stdout.strip() == "true":
        pytest.skip("a shallow clone holds no history of spec/openapi.yaml")
    spec = load_document(SPEC, cwd=REPO)
    committed = load_document(f"HEAD:{SPEC}", cwd=REPO)
    if committed.root != spec.root and committed.version != spec.version:
        previous = committed
    else:
        previous = _last_other_version(spec.version)
    report = compare_documents(previous, spec)
    if report.breaking_clients:
        assert report.semver.ok, (
            f"{len(report.breaking_clients)} changes since {previous.source} break clients: "
            f"info.version must be at least {report.semver.suggested} "
            f"(then run make api-changelog)"
        )


def _last_other_version(version: str) -> Any:
    """The spec at the newest first-parent commit whose info.version is not `version`."""
    log = _git("log", "--first-parent", "--format=%H", "--", SPEC).stdout.split()
    for commit in log:
        older = load_document(f"{commit}:{SPEC}", cwd=REPO)
        if older.version != version:
            return older
    pytest.skip(f"no commit of {SPEC} has an info.version other than {version}")


def test_the_rule_fails_a_breaking_change_without_its_bump(tmp_path: Path) -> None:
    breaking = edited(lambda r: r["paths"].pop("/pets/{pet_id}"))
    report = compare_documents(document(BASE), breaking)
    assert report.semver.ok is False and report.semver.suggested == "2.0.0"
    bumped = edited(lambda r: (r["paths"].pop("/pets/{pet_id}"), r["info"].update(version="2.0.0")))
    assert compare_documents(document(BASE), bumped).semver.ok is True


def test_write_entry_replaces_the_entry_of_the_same_version(tmp_path: Path) -> None:
    path = tmp_path / "changelog.md"
    first = compare_documents(document(BASE), edited(lambda r: r["paths"].pop("/pets/{pet_id}")))
    write_entry(path, render_changelog_entry(first))
    second = compare_documents(document(BASE), edited(lambda r: r["paths"].pop("/pets")))
    write_entry(path, render_changelog_entry(second))
    text = path.read_text(encoding="utf-8")
    assert text.count("## 1.0.0") == 1
    assert latest_entry(text) == ("1.0.0", "spec.yaml", render_changelog_entry(second))
