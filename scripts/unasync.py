"""Derive the synchronous twins of the wrapper from their async sources (httpcore's ``unasync``
script is the model): token substitutions, then ruff (imports, format) so the result reads as
hand-written code. Never edit a derived file; edit its source and run ``make derive``.

    python scripts/unasync.py           # rewrite the derived files
    python scripts/unasync.py --check   # exit 1 (with a diff) when one is stale
"""

from __future__ import annotations

import argparse
import difflib
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "wrapper" / "together_rl"

#: source (async) -> derived (sync)
PAIRS = {
    PACKAGE / f"_async{part}.py": PACKAGE / f"_sync{part}.py"
    for part in ("", "_http", "_resources", "_sessions")
}

#: applied in order; identifiers first (whole words), then the syntax
SUBSTITUTIONS: list[tuple[str, str]] = [
    (r"\bAsyncHTTP\b", "SyncHTTP"),
    (r"\b_async(_\w+)?\b", r"_sync\1"),
    (r"\bhttpx\.AsyncClient\b", "httpx.Client"),
    (r"\bAsync([A-Z]\w*)", r"\1"),
    (r"\basyncio\.Lock\b", "threading.Lock"),
    (r"(?m)^import asyncio$", "import asyncio\nimport threading"),  # ruff drops what is unused
    (r"\basyncio\.sleep\b", "time.sleep"),
    (r"\bAwaitable\[([^\[\]]*)\]", r"\1"),
    (r"\basync def\b", "def"),
    (r"\basync with\b", "with"),
    (r"\basync for\b", "for"),
    (r"\baiter_bytes\(", "iter_bytes("),
    (r"\baread\(", "read("),
    (r"\bawait ", ""),
    (r"\b__aenter__\b", "__enter__"),
    (r"\b__aexit__\b", "__exit__"),
    (r"\baclose\(", "close("),
    (r"\bAsynchronous\b", "Synchronous"),
    (r"\basynchronous\b", "synchronous"),
    (r"\basync\b", "sync"),
]
#: lines between these markers exist only in the async source
ASYNC_ONLY = re.compile(r"^[ \t]*# unasync: async only\n.*?^[ \t]*# unasync: end\n", re.M | re.S)
DERIVED_NOTE = (
    "# Derived from {source} by scripts/unasync.py (make derive): edit the source, not this.\n"
)


def unasync_text(text: str, source_name: str) -> str:
    text = ASYNC_ONLY.sub("", text)
    for pattern, replacement in SUBSTITUTIONS:
        text = re.sub(pattern, replacement, text)
    return DERIVED_NOTE.format(source=source_name) + text


def _ruff(path: Path) -> None:
    """Drop the imports the sync code no longer uses, sort them, and format, with the
    project's ruff configuration (``--config`` keeps the temporary file's folder out of it)."""
    ruff = Path(sys.executable).with_name("ruff")
    config = ["--config", str(ROOT / "pyproject.toml")]
    subprocess.run(
        [str(ruff), "check", "--quiet", "--fix-only", "--select", "F401,I", *config, str(path)],
        check=True,
    )
    subprocess.run([str(ruff), "format", "--quiet", *config, str(path)], check=True)


def derive(source: Path) -> str:
    text = unasync_text(source.read_text(encoding="utf-8"), source.name)
    with tempfile.TemporaryDirectory() as folder:
        # the same file name, so ruff's first-party detection treats it like the real one
        path = Path(folder) / PAIRS[source].name
        path.write_text(text, encoding="utf-8")
        _ruff(path)
        return path.read_text(encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check the files are fresh")
    args = parser.parse_args(argv)
    stale = []
    for source, target in PAIRS.items():
        fresh = derive(source)
        current = target.read_text(encoding="utf-8") if target.exists() else ""
        if fresh == current:
            continue
        if args.check:
            stale.append(target)
            sys.stdout.writelines(
                difflib.unified_diff(
                    current.splitlines(keepends=True),
                    fresh.splitlines(keepends=True),
                    str(target.relative_to(ROOT)),
                    f"derived from {source.name}",
                )
            )
        else:
            target.write_text(fresh, encoding="utf-8")
            print(f"derived {target.relative_to(ROOT)} from {source.name}")
    if stale:
        names = ", ".join(str(t.relative_to(ROOT)) for t in stale)
        print(f"\nstale: {names}; run `make derive`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
