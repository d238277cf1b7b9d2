"""The sync twins of the wrapper are derived from their async sources (``make derive``): the
committed files are what the derivation gives today."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_sync_twins_are_fresh() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "unasync.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, (
        "a derived sync file is stale: run `make derive` and commit the result.\n"
        + result.stdout[-4000:]
        + result.stderr
    )


def test_derivation_turns_async_code_into_sync_code() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import unasync
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    source = (
        "class AsyncThing:\n"
        "    async def get(self, fetch: Callable[[], Awaitable[int]]) -> int:\n"
        "        async with self._lock:\n"
        "            await asyncio.sleep(0)\n"
        "            return await fetch()\n"
        "    # unasync: async only\n"
        "    def __await__(self): ...\n"
        "    # unasync: end\n"
    )
    derived = unasync.unasync_text(source, "_async.py")
    assert derived.splitlines()[1:] == [
        "class Thing:",
        "    def get(self, fetch: Callable[[], int]) -> int:",
        "        with self._lock:",
        "            time.sleep(0)",
        "            return fetch()",
    ]


def test_the_documented_layout_lists_every_module() -> None:
    """docs/wrapper.md's layout names every module of the wrapper (and no module that is gone)."""
    import re

    text = (ROOT / "docs" / "wrapper.md").read_text()
    block = text.split("## Layout: how the wrapper sits on the spec", 1)[1].split("```")[1]
    listed = set(re.findall(r"\b(_?\w+\.py)\b", block)) - {"unasync.py"}  # scripts/unasync.py
    modules = {path.name for path in (ROOT / "wrapper" / "together_rl").glob("*.py")}
    assert listed == modules
