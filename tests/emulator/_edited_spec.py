"""Run checks in a fresh interpreter against a copy of the emulator package beside a copy of the
spec package (`together_rl_spec`) whose `openapi.yaml` was edited (a maintainer's drill: the
emulator follows the spec with no other edit)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import together_rl_emulator
import together_rl_spec
import yaml

__all__ = ["run_on_edited_spec"]


def run_on_edited_spec(
    tmp_path: Path, edit: Callable[[dict[str, Any]], dict[str, Any]], checks: str
) -> str:
    """Copy the emulator package, and the spec package with `edit(spec)` as its spec, run
    `checks` (Python source; `COPY` is the emulator copy's path) in a new interpreter importing
    those copies, and return its stdout (a failure of the checks fails the calling test with
    their stderr)."""
    package = Path(together_rl_emulator.__file__).parent
    copy = tmp_path / "together_rl_emulator"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    spec_copy = tmp_path / "together_rl_spec"
    spec_copy.mkdir()
    shutil.copy(together_rl_spec.__file__, spec_copy / "__init__.py")
    spec = yaml.safe_load(together_rl_spec.spec_bytes())
    (spec_copy / together_rl_spec.SPEC_FILE).write_text(yaml.safe_dump(edit(spec), sort_keys=False))
    script = f"COPY = {str(copy)!r}\n" + checks
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip()
