"""The comparison of two schemas, every `$ref` followed, in one position (request or response).

A change inside a component is named after it, so the same change seen from many operations is
one finding (memoised per pair of schemas); recursion through `$ref` cycles stops at the cycle.
A schema's own values (types, enum, keywords, defaults) are `_schema_value_checks.py`'s.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from together_rl_spec import pointer_join

from ._changes import Finding
from ._comparing_extra import OPENNESS as _OPENNESS
from ._comparing_extra import conditions as _conditions
from ._comparing_extra import dependencies as _dependencies
from ._comparing_extra import negations as _negations
from ._comparing_extra import openness as _openness
from ._comparing_extra import tuples as _tuples
from ._judging import Position
from ._renames import find_renames
from ._schema_value_checks import SchemaValueChecks, _canonical
from ._schemas import SchemaView, SchemaViews

__all__ = ["SchemaComparison"]


def _members(node: Any) -> set[str]:
    """The `$ref`s an `allOf` has as members (inline members are compared merged only: the
    merge of two properties' schemas is itself an inline `allOf`)."""
    members = node.get("allOf") if isinstance(node, dict) else None
    if not isinstance(members, list):
        return set()
    return {str(m["$ref"]) for m in members if isinstance(m, dict) and "$ref" in m}


def _all_of_members(old_node: Any, new_node: Any, found: Any) -> Iterator[Finding]:
    """A member joining or leaving an `allOf`: reported; what it changes in the values is
    compared through the merged schema like any other change."""
    old, new = _members(old_node), _members(new_node)
    for key in sorted(set(new) - set(old)):
        yield found("all-of-member-added", "allOf", None, key)
    for key in sorted(set(old) - set(new)):
        yield found("all-of-member-removed", "allOf", key, None)


class SchemaComparison(SchemaValueChecks):
    """Compares schemas of an old and a new document (their `SchemaViews`)."""

    def __init__(self, old: SchemaViews, new: SchemaViews) -> None:
        self.old = old
        self.new = new
        self._memo: dict[tuple[int, int, str], list[Finding]] = {}
        self._active: set[tuple[int, int, str]] = set()
        self._cut = 0  # cycles cut below the current frame: its findings are not memoised

    def schema(self, old: Any, new: Any, position: Position, location: str) -> list[Finding]:
        old_node, old_ref = self.old.follow(old)
        new_node, new_ref = self.new.follow(new)
        # Inside a component, a change is named after it: the new side's, else the old side's
        # (a schema moved inline), except where the component became one member of a new
        # oneOf/anyOf: then the place that changed is the one that holds it.
        ref = new_ref
        if ref is None and old_ref is not None:
            wrapped = self.new.view(new_node).variants is not None
            ref = None if wrapped and self.old.view(old_node).variants is None else old_ref
        # a component, or a schema in another file (`schemas/pet.yaml#/...`)
        named = ref is not None and (ref.startswith("#/components/") or not ref.startswith("#"))
        if named:
            location = str(ref)
        # Under a component the findings do not depend on the way there: memoised per pair.
        key = (id(old_node), id(new_node), position if named else f"{position} {location}")
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        if key in self._active:
            self._cut += 1
            return []
        self._active.add(key)
        cut_before = self._cut
        try:
            findings = list(self._schema_body(old_node, new_node, position, location))
        finally:
            self._active.discard(key)
        if self._cut == cut_before:
            self._memo[key] = findings
        return findings

    def _schema_body(
        self, old_node: Any, new_node: Any, position: Position, location: str
    ) -> Iterator[Finding]:
        old, new = self.old.view(old_node), self.new.view(new_node)

        def found(kind: str, detail: str, was: Any, now: Any, where: str = location) -> Finding:
            return Finding(kind, where, detail, was, now, position)

        if (old.variants is None) != (new.variants is None):
            old_members = old.variants if old.variants is not None else [old_node]
            new_members = new.variants if new.variants is not None else [new_node]
            yield from self._variants(old_members, new_members, position, location, new)
            return
        yield from self._types(old, new, found)
        yield from self._enum(old, new, found)
        yield from self._keywords(old, new, found)
        yield from _all_of_members(old_node, new_node, found)
        yield from self._defaults(old, new, found)
        for keyword in sorted(set(old.rules) | set(new.rules)):
            was, now = old.rules.get(keyword), new.rules.get(keyword)
            if keyword not in new.rules:
                yield found("rule-removed", keyword, was, None)
            elif keyword not in old.rules:
                yield found("rule-added", keyword, None, now)
            elif _canonical(was) != _canonical(now):
                yield found("rule-changed", keyword, was, now)
        yield from self._properties(old, new, position, location, found)
        yield from self._additional(old, new, position, location, found)
        if old.items is not None and new.items is not None:
            yield from self.schema(old.items, new.items, position, location + "/items")
        elif old.items is not None:
            yield found("items-removed", "items", "items", None)
        elif new.items is not None and old.types is not None and "array" in old.types:
            yield found("items-added", "items", None, "items")
        if old.variants is not None and new.variants is not None:
            yield from self._variants(old.variants, new.variants, position, location, new)
        yield from self._json_schema_keywords(old, new, position, location, found)

    def _json_schema_keywords(
        self, old: SchemaView, new: SchemaView, position: Position, location: str, found: Any
    ) -> Iterator[Finding]:
        """Tuples, unevaluatedProperties, conditionals, `not`, dependencies, and every keyword
        this tool does not model (reported, not judged)."""
        yield from _tuples(self, old, new, position, location, found)
        yield from self._unevaluated(old, new, position, location, found)
        yield from _conditions(self, old, new, position, location, found)
        yield from _negations(self, old, new, found)
        yield from _dependencies(self, old, new, position, location, found)
        for keyword in sorted(set(old.unjudged) | set(new.unjudged)):
            was, now = old.unjudged.get(keyword), new.unjudged.get(keyword)
            if _canonical(was) != _canonical(now):
                yield found("keyword-changed", keyword, was, now)
        for keyword in sorted(set(old.extensions) | set(new.extensions)):
            was, now = old.extensions.get(keyword), new.extensions.get(keyword)
            if _canonical(was) != _canonical(now):
                yield found("extension-changed", keyword, was, now)

    def _unevaluated(
        self, old: SchemaView, new: SchemaView, position: Position, location: str, found: Any
    ) -> Iterator[Finding]:
        was, now = old.unevaluated, new.unevaluated
        if isinstance(was, dict) and isinstance(now, dict):
            yield from self.schema(was, now, position, location + "/unevaluatedProperties")
            return
        old_rank, new_rank = _openness(was), _openness(now)
        shown = _OPENNESS[old_rank], _OPENNESS[new_rank]
        if new_rank > old_rank:
            yield found("unevaluated-properties-widened", "unevaluatedProperties", *shown)
        elif new_rank < old_rank:
            yield found("unevaluated-properties-narrowed", "unevaluatedProperties", *shown)

    def _properties(
        self, old: SchemaView, new: SchemaView, position: Position, location: str, found: Any
    ) -> Iterator[Finding]:
        declared = new.properties  # with the properties hidden in this direction
        old = self._visible(self.old, old, position)
        new = self._visible(self.new, new, position)
        removed = [name for name in old.properties if name not in new.properties]
        added = [name for name in new.properties if name not in old.properties]
        renames = find_renames(self.old, self.new, old, new, removed, added)
        for was, now in renames:
            where = pointer_join(location, "properties", now)
            yield found("property-renamed", f"{was}->{now}", was, now, where)
        renamed_old = {was for was, _ in renames}
        renamed_new = {now for _, now in renames}
        for name in removed:
            if name not in renamed_old:
                where = pointer_join(location, "properties", name)
                if name not in declared:
                    yield found("property-removed", name, name, None, where)
                elif position == "request":
                    yield found("property-became-read-only", name, name, None, where)
                else:
                    yield found("property-became-write-only", name, name, None, where)
        for name in added:
            if name not in renamed_new:
                kind = (
                    "property-added-required" if name in new.required else "property-added-optional"
                )
                yield found(kind, name, None, name, pointer_join(location, "properties", name))
        for name in old.properties:
            if name in new.properties:
                where = pointer_join(location, "properties", name)
                yield from self.schema(old.properties[name], new.properties[name], position, where)
        for name in sorted(new.required - old.required):
            if name in old.properties or name not in new.properties:
                where = pointer_join(location, "properties", name)
                yield found("property-became-required", f"required:{name}", False, True, where)
        for name in sorted(old.required - new.required):
            if name in new.properties or name not in old.properties:
                where = pointer_join(location, "properties", name)
                yield found("property-became-optional", f"required:{name}", True, False, where)

    @staticmethod
    def _visible(side: SchemaViews, view: SchemaView, position: Position) -> SchemaView:
        """The object as one direction sees it: readOnly properties are never in a request,
        writeOnly ones never in a response (and their `required` applies to the other)."""
        hidden = [
            name
            for name, schema in view.properties.items()
            if (position == "request" and side.view(schema).read_only)
            or (position == "response" and side.view(schema).write_only)
        ]
        if not hidden:
            return view
        return replace(
            view,
            properties={k: v for k, v in view.properties.items() if k not in hidden},
            required=view.required - set(hidden),
        )

    def _additional(
        self, old: SchemaView, new: SchemaView, position: Position, location: str, found: Any
    ) -> Iterator[Finding]:
        was, now = old.additional, new.additional
        if isinstance(was, dict) and isinstance(now, dict):
            yield from self.schema(was, now, position, location + "/additionalProperties")
            return
        old_rank, new_rank = _openness(was), _openness(now)
        if old_rank == new_rank:
            return
        kind = (
            "additional-properties-widened"
            if new_rank > old_rank
            else "additional-properties-narrowed"
        )
        yield found(kind, "additionalProperties", _OPENNESS[old_rank], _OPENNESS[new_rank])

    def _variants(
        self,
        old_members: list[Any],
        new_members: list[Any],
        position: Position,
        location: str,
        new_view: SchemaView,
    ) -> Iterator[Finding]:
        keyword = new_view.variant_keyword
        old_marks = [self.old.fingerprint(member) for member in old_members]
        new_marks = [self.new.fingerprint(member) for member in new_members]
        unmatched_old = [i for i in range(len(old_members))]
        unmatched_new = [i for i in range(len(new_members))]
        for i in list(unmatched_old):
            if old_marks[i] in [new_marks[j] for j in unmatched_new]:
                j = next(j for j in unmatched_new if new_marks[j] == old_marks[i])
                unmatched_old.remove(i)
                unmatched_new.remove(j)
        for i in list(unmatched_old):
            old_types = self.old.view(old_members[i]).types
            same_type = [
                j for j in unmatched_new if self.new.view(new_members[j]).types == old_types
            ]
            if len(unmatched_old) == 1 and len(unmatched_new) == 1:
                same_type = unmatched_new
            if same_type:
                j = same_type[0]
                unmatched_old.remove(i)
                unmatched_new.remove(j)
                where = location if len(new_members) == 1 else f"{location}/{keyword}/{j}"
                yield from self.schema(old_members[i], new_members[j], position, where)
        for j in unmatched_new:
            yield Finding(
                "variant-added",
                f"{location}/{keyword}/{j}",
                f"variant:{new_marks[j]}",
                None,
                self._summary(self.new, new_members[j]),
                position,
            )
        for i in unmatched_old:
            yield Finding(
                "variant-removed",
                f"{location}/{keyword}",
                f"variant:{old_marks[i]}",
                self._summary(self.old, old_members[i]),
                None,
                position,
            )

    @staticmethod
    def _summary(side: SchemaViews, member: Any) -> Any:
        _, ref = side.follow(member)
        if ref is not None:
            return ref
        view = side.view(member)
        return sorted(view.types) if view.types is not None else "any"
