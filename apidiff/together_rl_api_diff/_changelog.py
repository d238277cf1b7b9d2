"""docs/api-changelog.md: entries written by the tool, newest first, one per info.version."""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["CHANGELOG_HEADER", "entry_for", "latest_entry", "write_entry"]

CHANGELOG_HEADER = """# Changelog of the API description (`spec/openapi.yaml`)

Written by `make api-changelog` (`together-rl-api-diff BASELINE spec/openapi.yaml
--write-changelog docs/api-changelog.md`): one entry per `info.version`, newest first, each
comparing the spec with the baseline it names. `make test` checks that the newest entry is what
the tool writes today and that `info.version` is bumped as the changes require
(`tests/api_diff/test_changelog_rule.py`). Do not edit the entries by hand.
"""

_ENTRY = re.compile(r"^## (\S+)\n", re.MULTILINE)
_BASELINE = re.compile(r"^Baseline: `([^`]+)`", re.MULTILINE)


def _entries(text: str) -> list[tuple[str, str]]:
    starts = list(_ENTRY.finditer(text))
    found = []
    for index, match in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(text)
        found.append((match[1], text[match.start() : end].rstrip("\n") + "\n"))
    return found


def entry_for(text: str, version: str) -> str | None:
    return next((body for name, body in _entries(text) if name == version), None)


def latest_entry(text: str) -> tuple[str, str, str] | None:
    """(version, baseline source, entry text) of the newest entry."""
    entries = _entries(text)
    if not entries:
        return None
    version, body = entries[0]
    baseline = _BASELINE.search(body)
    return version, baseline[1] if baseline else "", body


def write_entry(path: Path, entry: str) -> None:
    """Put `entry` first, replacing an older entry of the same version."""
    text = path.read_text(encoding="utf-8") if path.is_file() else CHANGELOG_HEADER
    version = _ENTRY.match(entry)
    assert version is not None
    kept = [body for name, body in _entries(text) if name != version[1]]
    first = _ENTRY.search(text)
    header = text[: first.start()] if first else text
    path.write_text(header.rstrip("\n") + "\n\n" + "\n".join([entry, *kept]), encoding="utf-8")
