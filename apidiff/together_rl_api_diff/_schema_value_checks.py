"""The value keywords of two schema views compared: types, enum, the other keywords (bounds,
patterns, formats, content keywords) and defaults. Each check yields what `found` makes of a
change (`SchemaComparison` names it after the place it was found)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ._bounds import RANGE_KEYWORDS, range_changes
from ._bounds import number as _number
from ._changes import Finding
from ._patterns import pattern_kind as _pattern_kind
from ._schemas import CONTENT_KEYWORDS, LOWER_BOUNDS, UPPER_BOUNDS, SchemaView

__all__ = ["SchemaValueChecks"]


def _canonical(value: Any) -> str:
    number = _number(value) if not isinstance(value, str) else None
    if number is not None:
        return repr(number)
    return json.dumps(value, sort_keys=True, default=str)


def _numeric(view: SchemaView) -> bool:
    return view.types is not None and bool(view.types) and view.types <= {"number", "integer"}


def _format_kind(old: SchemaView, new: SchemaView, was: Any, now: Any) -> str:
    """A number's or integer's format picks a generated type (Go float32 or float64): its
    change is judged for generated clients."""
    if _numeric(old) and _numeric(new):
        if was is None:
            return "numeric-format-added"
        return "numeric-format-removed" if now is None else "numeric-format-changed"
    if was is None:
        return "format-added"
    return "format-removed" if now is None else "format-changed"


def _subset(first: frozenset[str], second: frozenset[str]) -> bool:
    return all(t in second or (t == "integer" and "number" in second) for t in first)


class SchemaValueChecks:
    """The checks of one schema's own values, without recursion into its members."""

    def _types(self, old: SchemaView, new: SchemaView, found: Any) -> Iterator[Finding]:
        if old.types == new.types:
            return
        was = sorted(old.types) if old.types is not None else "any"
        now = sorted(new.types) if new.types is not None else "any"
        if new.types is None or (old.types is not None and _subset(old.types, new.types)):
            yield found("type-widened", "type", was, now)
        elif old.types is None or _subset(new.types, old.types):
            yield found("type-narrowed", "type", was, now)
        else:
            yield found("type-changed", "type", was, now)

    def _enum(self, old: SchemaView, new: SchemaView, found: Any) -> Iterator[Finding]:
        if old.enum is None and new.enum is None:
            return
        if old.enum is None:
            yield found("enum-added", "enum", None, new.enum)
            return
        if new.enum is None:
            yield found("enum-removed", "enum", old.enum, None)
            return
        old_keys = {_canonical(value): value for value in old.enum}
        new_keys = {_canonical(value): value for value in new.enum}
        for key, value in old_keys.items():
            if key not in new_keys:
                yield found("enum-value-removed", f"enum:{key}", value, None)
        for key, value in new_keys.items():
            if key not in old_keys:
                yield found("enum-value-added", f"enum:{key}", None, value)

    def _keywords(self, old: SchemaView, new: SchemaView, found: Any) -> Iterator[Finding]:
        for moved, keyword, was, now in range_changes(old.keywords, new.keywords):
            kind = "bound-tightened" if moved == "tightened" else "bound-relaxed"
            yield found(kind, keyword, was, now)
        for keyword in sorted((set(old.keywords) | set(new.keywords)) - RANGE_KEYWORDS):
            was, now = old.keywords.get(keyword), new.keywords.get(keyword)
            if _canonical(was) == _canonical(now):
                continue
            if keyword == "pattern":
                yield found(_pattern_kind(was, now), keyword, was, now)
                continue
            if keyword == "format":
                yield found(_format_kind(old, new, was, now), keyword, was, now)
                continue
            if keyword in CONTENT_KEYWORDS:
                kind = (
                    "content-keyword-added"
                    if was is None
                    else "content-keyword-removed"
                    if now is None
                    else "content-keyword-changed"
                )
                yield found(kind, keyword, was, now)
                continue
            if keyword == "uniqueItems":
                kind = "bound-tightened" if now else "bound-relaxed"
                yield found(kind, keyword, was, now)
                continue
            old_number, new_number = _number(was), _number(now)
            if keyword == "multipleOf":
                kind = "bound-changed"
                if was is None or (old_number and new_number and new_number % old_number == 0):
                    kind = "bound-tightened"
                elif now is None or (old_number and new_number and old_number % new_number == 0):
                    kind = "bound-relaxed"
                yield found(kind, keyword, was, now)
                continue
            if old_number is None or new_number is None:
                tighter = was is None
            elif keyword in LOWER_BOUNDS:
                tighter = new_number > old_number
            else:
                assert keyword in UPPER_BOUNDS
                tighter = new_number < old_number
            yield found("bound-tightened" if tighter else "bound-relaxed", keyword, was, now)

    def _defaults(self, old: SchemaView, new: SchemaView, found: Any) -> Iterator[Finding]:
        gone = [k for k in old.defaults if k not in new.defaults]
        came = [k for k in new.defaults if k not in old.defaults]
        moved = set()
        for was_keyword in gone:  # the same value under another default keyword
            value = _canonical(old.defaults[was_keyword])
            now_keyword = next((k for k in came if _canonical(new.defaults[k]) == value), None)
            if now_keyword is not None and now_keyword not in moved:
                moved |= {was_keyword, now_keyword}
                detail = f"{was_keyword} -> {now_keyword}"
                yield found("default-moved", detail, was_keyword, now_keyword)
        for keyword in sorted((set(old.defaults) | set(new.defaults)) - moved):
            had, has = keyword in old.defaults, keyword in new.defaults
            was, now = old.defaults.get(keyword), new.defaults.get(keyword)
            if had and not has:
                yield found("default-removed", keyword, was, None)
            elif has and not had:
                yield found("default-added", keyword, None, now)
            elif _canonical(was) != _canonical(now):
                yield found("default-changed", keyword, was, now)
