"""The JSON Schema 2020-12 keywords beyond OpenAPI 3.0's: tuples (`prefixItems`), conditionals
(`if`/`then`/`else`), `not`, `dependentRequired` and `dependentSchemas`.

`then`, `else`, a `prefixItems` entry and a `dependentSchemas` entry constrain in the same
direction as the schema around them, so a change inside one is judged as it would be outside.
A changed `if` or a changed `not` cannot be judged from the keywords alone (a wider `not`
accepts less): reported as `condition-changed` / `not-changed`, not judged.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from together_rl_spec import pointer_join

from ._changes import Finding
from ._judging import Position
from ._schemas import SchemaView, SchemaViews

__all__ = [
    "OPENNESS",
    "SchemaComparison",
    "conditions",
    "dependencies",
    "negations",
    "openness",
    "tuples",
]


class SchemaComparison(Protocol):
    """What these comparers need of `_comparing_schemas.SchemaComparison` (which calls them):
    both documents' views, and the comparison of two subschemas."""

    old: SchemaViews
    new: SchemaViews

    def schema(self, old: Any, new: Any, position: Position, location: str) -> list[Finding]: ...


#: how `openness` ranks are shown
OPENNESS: dict[int, Any] = {0: False, 1: "schema", 2: True}


def openness(value: Any) -> int:
    """additionalProperties / unevaluatedProperties: False 0, a schema 1, True (absent) 2."""
    if value is False:
        return 0
    return 2 if value is True else 1


def _shown_schema(side: SchemaViews, member: Any) -> Any:
    """A subschema as the report shows it: its reference, else itself."""
    _, ref = side.follow(member)
    return ref if ref is not None else member


def tuples(
    comparison: SchemaComparison,
    old: SchemaView,
    new: SchemaView,
    position: Position,
    location: str,
    found: Any,
) -> Iterator[Finding]:
    """Entry by entry; an entry added where `items` constrained every element is compared with
    the old `items` (2020-12: `items` applies after the prefix), else it narrows."""
    was, now = old.prefix_items or [], new.prefix_items or []
    for index in range(max(len(was), len(now))):
        where = pointer_join(location, "prefixItems", index)
        if index < len(was) and index < len(now):
            yield from comparison.schema(was[index], now[index], position, where)
        elif index < len(now) and old.items is not None:
            yield from comparison.schema(old.items, now[index], position, where)
        elif index < len(now):
            yield found("prefix-items-added", str(index), None, "schema", where)
        elif new.items is not None:
            yield from comparison.schema(was[index], new.items, position, where)
        else:
            yield found("prefix-items-removed", str(index), "schema", None, where)


def conditions(
    comparison: SchemaComparison,
    old: SchemaView,
    new: SchemaView,
    position: Position,
    location: str,
    found: Any,
) -> Iterator[Finding]:
    was, now = old.conditions, new.conditions
    if not was and not now:
        return
    if len(was) == len(now):
        for index, (before, after) in enumerate(zip(was, now, strict=True)):
            where = location if len(now) == 1 else pointer_join(location, "allOf", index)
            yield from _condition(comparison, before, after, position, where, found)
        return
    for index in range(len(now)):
        if index >= len(was):
            yield found("condition-added", "if/then/else", None, "if/then/else")
    for index in range(len(was)):
        if index >= len(now):
            yield found("condition-removed", "if/then/else", "if/then/else", None)


def _condition(
    comparison: SchemaComparison,
    was: dict[str, Any],
    now: dict[str, Any],
    position: Position,
    where: str,
    found: Any,
) -> Iterator[Finding]:
    old_if = comparison.old.fingerprint(was.get("if", True))
    new_if = comparison.new.fingerprint(now.get("if", True))
    if old_if != new_if:
        shown_old = _shown_schema(comparison.old, was.get("if", True))
        shown_new = _shown_schema(comparison.new, now.get("if", True))
        yield found("condition-changed", "if", shown_old, shown_new, where)
        return
    for branch in ("then", "else"):
        branch_where = pointer_join(where, branch)
        if branch in was and branch in now:
            yield from comparison.schema(was[branch], now[branch], position, branch_where)
        elif branch in now:
            yield found("condition-added", branch, None, branch, branch_where)
        elif branch in was:
            yield found("condition-removed", branch, branch, None, branch_where)


def negations(
    comparison: SchemaComparison, old: SchemaView, new: SchemaView, found: Any
) -> Iterator[Finding]:
    was = {comparison.old.fingerprint(m): m for m in old.negated}
    now = {comparison.new.fingerprint(m): m for m in new.negated}
    if set(was) == set(now):
        return
    if not was:
        for member in now.values():
            yield found("not-added", "not", None, _shown_schema(comparison.new, member))
    elif not now:
        for member in was.values():
            yield found("not-removed", "not", _shown_schema(comparison.old, member), None)
    else:
        shown_old = [_shown_schema(comparison.old, m) for m in was.values()]
        shown_new = [_shown_schema(comparison.new, m) for m in now.values()]
        yield found("not-changed", "not", shown_old, shown_new)


def dependencies(
    comparison: SchemaComparison,
    old: SchemaView,
    new: SchemaView,
    position: Position,
    location: str,
    found: Any,
) -> Iterator[Finding]:
    for name in sorted(set(old.dependent_required) | set(new.dependent_required)):
        was = old.dependent_required.get(name, frozenset())
        now = new.dependent_required.get(name, frozenset())
        where = pointer_join(location, "dependentRequired", name)
        for needed in sorted(now - was):
            yield found("dependent-required-added", f"{name} -> {needed}", None, needed, where)
        for needed in sorted(was - now):
            yield found("dependent-required-removed", f"{name} -> {needed}", needed, None, where)
    for name in sorted(set(old.dependent_schemas) | set(new.dependent_schemas)):
        where = pointer_join(location, "dependentSchemas", name)
        if name in old.dependent_schemas and name in new.dependent_schemas:
            yield from comparison.schema(
                old.dependent_schemas[name], new.dependent_schemas[name], position, where
            )
        elif name in new.dependent_schemas:
            yield found("dependent-schema-added", name, None, name, where)
        else:
            yield found("dependent-schema-removed", name, name, None, where)
