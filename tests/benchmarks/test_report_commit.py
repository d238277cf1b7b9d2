"""The commit a benchmark table names: `-dirty` only when code differs from it, not when the
benchmarks' own outputs in docs/ do (a run writes its tables and plots as it goes)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from benchmarks import _report


def _git(repo: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def test_a_table_names_its_commit_dirty_only_for_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "benchmarks.md").write_text("tables\n")
    (tmp_path / "code.py").write_text("x = 1\n")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    head = _git(tmp_path, "rev-parse", "--short=10", "HEAD")
    monkeypatch.setattr(_report, "ROOT", tmp_path)
    assert _report._commit() == head
    (tmp_path / "docs" / "benchmarks.md").write_text("new tables\n")
    assert _report._commit() == head  # the run's own output
    (tmp_path / "code.py").write_text("x = 2\n")
    assert _report._commit() == f"{head}-dirty"
    monkeypatch.setattr(_report, "ROOT", tmp_path / "not-a-repo")
    assert _report._commit() == "unknown"
