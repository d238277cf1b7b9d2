"""Whether a changed `pattern` accepts more, fewer or other strings, where that can be decided.

JSON Schema's `pattern` is searched for anywhere in the string (not anchored). Decided cases:
a pattern that matches every string (`.*`, `^.*$`, empty), an anchor removed or added, and an
alternative added or removed at the top level (`P` -> `P|Q`). Anything else is "changed".
"""

from __future__ import annotations

import re

__all__ = ["matches_everything", "pattern_kind"]

_EVERYTHING = re.compile(r"^\^?(\.\*\??|\(\.\*\))?\$?$")


def matches_everything(pattern: str) -> bool:
    """`.*`, `^.*$`, `^`, `` and the like: every string has a match."""
    return bool(_EVERYTHING.match(pattern)) and pattern not in ("^$",)


def _valid(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return True


def _widens(old: str, new: str) -> bool:
    """True when every string `old` matches, `new` matches too (as far as can be decided)."""
    if matches_everything(new):
        return True
    for anchor_free in (old.removeprefix("^"), old.removesuffix("$"), old.strip("^$")):
        if new == anchor_free and new != old:
            return True
    if new.startswith(old + "|") and _valid(old) and _valid(new[len(old) + 1 :]):
        return True
    return new.endswith("|" + old) and _valid(old) and _valid(new[: -len(old) - 1])


def pattern_kind(old: str | None, new: str | None) -> str:
    """The kind of change from pattern `old` to `new` (None: no pattern)."""
    if old is None:
        return "pattern-added"
    if new is None:
        return "pattern-removed"
    if _widens(str(old), str(new)):
        return "pattern-widened"
    if _widens(str(new), str(old)):
        return "pattern-narrowed"
    return "pattern-changed"
