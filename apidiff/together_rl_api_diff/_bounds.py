"""A numeric range's two ends, each one bound however it is spelled: `minimum` with
`exclusiveMinimum` (a number in 3.1, a flag on `minimum` in 3.0) is one lower bound, the pair of
`maximum` keywords one upper bound. So `maximum: 20` -> `maximum: 20, exclusiveMaximum: true`
is one tightening, and a 3.0 flag set without its number bounds nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["RANGE_KEYWORDS", "number", "range_changes"]

#: end -> (inclusive keyword, exclusive keyword)
_ENDS = {"lower": ("minimum", "exclusiveMinimum"), "upper": ("maximum", "exclusiveMaximum")}
RANGE_KEYWORDS = frozenset(keyword for pair in _ENDS.values() for keyword in pair)

Bound = tuple[float, bool, Any]  # (number, exclusive, as written)


def number(value: Any) -> float | None:
    """A bound's number (one written as a string too); None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _bound(keywords: dict[str, Any], end: str) -> Bound | None:
    """The tighter of the end's inclusive and exclusive bounds (a schema may give both)."""
    inclusive, exclusive = _ENDS[end]
    found = [
        (value, keyword == exclusive, keywords[keyword])
        for keyword in (inclusive, exclusive)
        if keyword in keywords and (value := number(keywords[keyword])) is not None
    ]
    if not found:
        return None
    if end == "lower":
        return max(found, key=lambda bound: (bound[0], bound[1]))
    return min(found, key=lambda bound: (bound[0], not bound[1]))


def _tighter(end: str, old: Bound, new: Bound) -> bool | None:
    """True: `new` accepts fewer numbers; False: more; None: the same."""
    if (old[0], old[1]) == (new[0], new[1]):
        return None
    if end == "lower":
        return (new[0], new[1]) > (old[0], old[1])
    return (new[0], not new[1]) < (old[0], not old[1])


def _shown(end: str, bound: Bound, marked: bool) -> Any:
    if not marked:
        return bound[2]
    sign = (">" if bound[1] else ">=") if end == "lower" else ("<" if bound[1] else "<=")
    return f"{sign} {bound[2]}"


def range_changes(old: dict[str, Any], new: dict[str, Any]) -> Iterator[tuple[str, str, Any, Any]]:
    """(`tightened` or `relaxed`, the keyword, old, new) for each end that moved."""
    for end, (inclusive, exclusive) in _ENDS.items():
        was, now = _bound(old, end), _bound(new, end)
        if was is None and now is None:
            continue
        if was is None or now is None:
            present = now if was is None else was
            assert present is not None
            keyword = exclusive if present[1] else inclusive
            yield (
                "tightened" if was is None else "relaxed",
                keyword,
                None if was is None else was[2],
                None if now is None else now[2],
            )
            continue
        tighter = _tighter(end, was, now)
        if tighter is None:
            continue
        same = was[1] == now[1]
        keyword = (exclusive if now[1] else inclusive) if same else inclusive
        yield (
            "tightened" if tighter else "relaxed",
            keyword,
            _shown(end, was, not same),
            _shown(end, now, not same),
        )
