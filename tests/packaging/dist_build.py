"""`make dist` as a fresh checkout runs it: copy the sources git knows of into a folder outside
the repository and run the Makefile's own `dist` recipe there, with this repository's venv (its
pinned build tools; never remade from the copy) and the commit time of HEAD as the build's clock."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from ci_policy import missing

__all__ = ["REPO", "VENV", "copy_sources", "make_dist"]

REPO = Path(__file__).resolve().parents[2]
VENV = REPO / ".venv"


def _git(*args: str) -> str:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        missing("the packaging tests copy the sources git knows of: git or the checkout is missing")
    done = subprocess.run(["git", *args], cwd=REPO, capture_output=True, check=True, timeout=60)
    return done.stdout.decode()


def copy_sources(target: Path) -> Path:
    """The work tree's tracked and untracked-but-not-ignored files, symlinks kept as links."""
    for name in filter(None, _git("ls-files", "-co", "--exclude-standard", "-z").split("\0")):
        source, copy = REPO / name, target / name
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the work tree
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            copy.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, copy)
    return target


def make_dist(sources: Path) -> Path:
    """Run `make dist` in ``sources`` (a copy: no .git) and return its dist/ folder."""
    if shutil.which("make") is None:
        missing("make not found: `make dist` cannot run")
    stamp = VENV / ".installed"
    if not stamp.exists():
        missing(f"{stamp} is missing: `make venv` installs the build tools")
    epoch = _git("log", "-1", "--format=%ct").strip()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    done = subprocess.run(
        ["make", "--no-print-directory", "-o", str(stamp), "dist", f"VENV={VENV}"],
        cwd=sources,
        env={**env, "SOURCE_DATE_EPOCH": epoch},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"make dist failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert "check_dist: metadata, readme, licence, packages and the one spec" in done.stdout
    return sources / "dist"
