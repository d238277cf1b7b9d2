"""Renames: a property removed and another added in the same object, accepting the same values,
are one change with both names."""

from __future__ import annotations

import difflib

from ._schemas import SchemaView, SchemaViews

__all__ = ["find_renames"]


def find_renames(
    old_views: SchemaViews,
    new_views: SchemaViews,
    old: SchemaView,
    new: SchemaView,
    removed: list[str],
    added: list[str],
) -> list[tuple[str, str]]:
    """A removed and an added property of the same object that accept the same values."""
    if not removed or not added:
        return []
    pairs: list[tuple[str, str]] = []
    free = list(added)
    for was in removed:
        mark = old_views.fingerprint(old.properties[was])
        same = [now for now in free if new_views.fingerprint(new.properties[now]) == mark]
        if not same:
            continue
        best = max(same, key=lambda now: difflib.SequenceMatcher(None, was, now).ratio())
        pairs.append((was, best))
        free.remove(best)
    return pairs
