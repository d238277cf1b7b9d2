"""The comparison of two documents: operations by method and path, then everything in them.

Schemas are compared with every `$ref` followed; the place of a change inside a component is
named after the component (the new document's name), so a change of a shared schema is found
once and reported with every operation that reaches it.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ._changes import Change, DiffReport, Finding, advise_semver, change_id, judged
from ._judging import Position
from ._loading import Document
from ._messages import describe
from ._refs import Resolver, pointer_join
from ._schemas import LOWER_BOUNDS, UPPER_BOUNDS, SchemaView, SchemaViews

__all__ = ["compare_documents"]

_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_PATH_PARAMETER = re.compile(r"\{[^}/]*\}")
_Pair = tuple[Any, Any]


def _number(value: Any) -> float | None:
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


def _canonical(value: Any) -> str:
    number = _number(value) if not isinstance(value, str) else None
    if number is not None:
        return repr(number)
    return json.dumps(value, sort_keys=True, default=str)


def _subset(first: frozenset[str], second: frozenset[str]) -> bool:
    return all(t in second or (t == "integer" and "number" in second) for t in first)


@dataclass
class _Operation:
    method: str
    path: str
    pointer: str
    node: dict[str, Any]
    path_item: dict[str, Any]

    @property
    def label(self) -> str:
        return f"{self.method.upper()} {self.path}"


class _Side:
    """One document with its resolver and schema views."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.resolver = Resolver(document.root, document.source)
        self.resolver.check_references()
        self.views = SchemaViews(self.resolver)

    def follow(self, node: Any) -> Any:
        return self.resolver.follow(node)[0]

    def operations(self, prefix: str | None) -> dict[tuple[str, str], _Operation]:
        found: dict[tuple[str, str], _Operation] = {}
        for path, raw_item in (self.document.root.get("paths") or {}).items():
            if prefix and not str(path).startswith(prefix):
                continue
            item = self.follow(raw_item)
            if not isinstance(item, dict):
                continue
            for method in _METHODS:
                operation = item.get(method)
                if isinstance(operation, dict):
                    key = (method, _PATH_PARAMETER.sub("{}", str(path)))
                    pointer = pointer_join("#/paths", str(path), method)
                    found[key] = _Operation(method, str(path), pointer, operation, item)
        return found

    def parameters(self, operation: _Operation) -> dict[tuple[str, str], tuple[str, Any]]:
        """(in, name) -> (pointer, parameter); path parameters by position, not by name."""
        by_key: dict[tuple[str, str], tuple[str, Any]] = {}
        path_names = [name.strip("{}") for name in _PATH_PARAMETER.findall(operation.path)]
        path_pointer = operation.pointer.rsplit("/", 1)[0]
        sources = (
            (operation.path_item.get("parameters"), path_pointer),
            (operation.node.get("parameters"), operation.pointer),
        )
        for listed, base in sources:
            for index, raw in enumerate(listed or []):
                parameter = self.follow(raw)
                if not isinstance(parameter, dict):
                    continue
                place, name = str(parameter.get("in", "")), str(parameter.get("name", ""))
                if place == "header":
                    name = name.lower()
                if place == "path" and name in path_names:
                    name = f"#{path_names.index(name)}"
                by_key[(place, name)] = (pointer_join(base, "parameters", index), parameter)
        return by_key

    def security_scheme(self, name: str) -> dict[str, Any]:
        schemes = (self.document.root.get("components") or {}).get("securitySchemes") or {}
        found = self.follow(schemes.get(name, {}))
        return found if isinstance(found, dict) else {}

    def security(self, operation: _Operation) -> set[frozenset[str]]:
        listed = operation.node.get("security", self.document.root.get("security"))
        if not listed:
            return {frozenset()}
        return {frozenset(item) for item in listed if isinstance(item, dict)}


class _Comparison:
    def __init__(self, old: _Side, new: _Side) -> None:
        self.old = old
        self.new = new
        self._memo: dict[tuple[int, int, str], list[Finding]] = {}
        self._active: set[tuple[int, int, str]] = set()
        self._cut = 0  # cycles cut below the current frame: its findings are not memoised

    # ------------------------------------------------------------------ schemas

    def schema(self, old: Any, new: Any, position: Position, location: str) -> list[Finding]:
        old_node, old_ref = self.old.resolver.follow(old)
        new_node, new_ref = self.new.resolver.follow(new)
        # Inside a component, a change is named after it: the new side's, else the old side's
        # (a schema moved inline), except where the component became one member of a new
        # oneOf/anyOf: then the place that changed is the one that holds it.
        ref = new_ref
        if ref is None and old_ref is not None:
            wrapped = self.new.views.view(new_node).variants is not None
            ref = None if wrapped and self.old.views.view(old_node).variants is None else old_ref
        named = ref is not None and ref.startswith("#/components/")
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
        old, new = self.old.views.view(old_node), self.new.views.view(new_node)

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
        for keyword in sorted(set(old.keywords) | set(new.keywords)):
            was, now = old.keywords.get(keyword), new.keywords.get(keyword)
            if _canonical(was) == _canonical(now):
                continue
            if keyword in ("pattern", "format"):
                suffix = "added" if was is None else "removed" if now is None else "changed"
                yield found(f"{keyword}-{suffix}", keyword, was, now)
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
        for keyword, had, has, was, now in (
            ("default", old.has_default, new.has_default, old.default, new.default),
            (
                "x-server-default",
                old.has_server_default,
                new.has_server_default,
                old.server_default,
                new.server_default,
            ),
        ):
            if had and not has:
                yield found("default-removed", keyword, was, None)
            elif has and not had:
                yield found("default-added", keyword, None, now)
            elif had and _canonical(was) != _canonical(now):
                yield found("default-changed", keyword, was, now)

    def _properties(
        self, old: SchemaView, new: SchemaView, position: Position, location: str, found: Any
    ) -> Iterator[Finding]:
        removed = [name for name in old.properties if name not in new.properties]
        added = [name for name in new.properties if name not in old.properties]
        renames = self._renames(old, new, removed, added)
        for was, now in renames:
            where = pointer_join(location, "properties", now)
            yield found("property-renamed", f"{was}->{now}", was, now, where)
        renamed_old = {was for was, _ in renames}
        renamed_new = {now for _, now in renames}
        for name in removed:
            if name not in renamed_old:
                where = pointer_join(location, "properties", name)
                yield found("property-removed", name, name, None, where)
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

    def _renames(
        self, old: SchemaView, new: SchemaView, removed: list[str], added: list[str]
    ) -> list[tuple[str, str]]:
        """A removed and an added property of the same object that accept the same values."""
        if not removed or not added:
            return []
        pairs: list[tuple[str, str]] = []
        free = list(added)
        for was in removed:
            mark = self.old.views.fingerprint(old.properties[was])
            same = [now for now in free if self.new.views.fingerprint(new.properties[now]) == mark]
            if not same:
                continue
            best = max(same, key=lambda now: difflib.SequenceMatcher(None, was, now).ratio())
            pairs.append((was, best))
            free.remove(best)
        return pairs

    def _additional(
        self, old: SchemaView, new: SchemaView, position: Position, location: str, found: Any
    ) -> Iterator[Finding]:
        was, now = old.additional, new.additional
        if isinstance(was, dict) and isinstance(now, dict):
            yield from self.schema(was, now, position, location + "/additionalProperties")
            return
        rank = {False: 0, True: 2}
        old_rank = rank.get(was, 1) if isinstance(was, bool) else 1
        new_rank = rank.get(now, 1) if isinstance(now, bool) else 1
        if old_rank == new_rank:
            return
        kind = (
            "additional-properties-widened"
            if new_rank > old_rank
            else "additional-properties-narrowed"
        )
        show = {0: False, 1: "schema", 2: True}
        yield found(kind, "additionalProperties", show[old_rank], show[new_rank])

    def _variants(
        self,
        old_members: list[Any],
        new_members: list[Any],
        position: Position,
        location: str,
        new_view: SchemaView,
    ) -> Iterator[Finding]:
        keyword = new_view.variant_keyword
        old_marks = [self.old.views.fingerprint(member) for member in old_members]
        new_marks = [self.new.views.fingerprint(member) for member in new_members]
        unmatched_old = [i for i in range(len(old_members))]
        unmatched_new = [i for i in range(len(new_members))]
        for i in list(unmatched_old):
            if old_marks[i] in [new_marks[j] for j in unmatched_new]:
                j = next(j for j in unmatched_new if new_marks[j] == old_marks[i])
                unmatched_old.remove(i)
                unmatched_new.remove(j)
        for i in list(unmatched_old):
            old_types = self.old.views.view(old_members[i]).types
            same_type = [
                j for j in unmatched_new if self.new.views.view(new_members[j]).types == old_types
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
    def _summary(side: _Side, member: Any) -> Any:
        _, ref = side.resolver.follow(member)
        if ref is not None:
            return ref
        view = side.views.view(member)
        return sorted(view.types) if view.types is not None else "any"

    # ------------------------------------------------------------------ operations

    def operation(self, old: _Operation, new: _Operation) -> Iterator[Finding]:
        yield from self._parameters(old, new)
        yield from self._request_body(old, new)
        yield from self._responses(old, new)
        old_security, new_security = self.old.security(old), self.new.security(new)
        where = pointer_join(new.pointer, "security")
        for alternative in sorted(new_security - old_security, key=sorted):
            yield Finding(
                "security-alternative-added",
                where,
                f"security:{sorted(alternative)}",
                None,
                sorted(alternative),
                "request",
            )
        for alternative in sorted(old_security & new_security, key=sorted):
            for name in sorted(alternative):
                yield from self._security_scheme(name)
        for alternative in sorted(old_security - new_security, key=sorted):
            yield Finding(
                "security-alternative-removed",
                where,
                f"security:{sorted(alternative)}",
                sorted(alternative),
                None,
                "request",
            )

    def _security_scheme(self, name: str) -> Iterator[Finding]:
        """A scheme both versions require, but sent another way (type, scheme, header name)."""
        old_scheme = self.old.security_scheme(name)
        new_scheme = self.new.security_scheme(name)
        for keyword in ("type", "scheme", "in", "name", "bearerFormat"):
            was, now = old_scheme.get(keyword), new_scheme.get(keyword)
            if was != now:
                where = pointer_join("#/components/securitySchemes", name)
                yield Finding("security-scheme-changed", where, keyword, was, now, "request")

    def _parameters(self, old: _Operation, new: _Operation) -> Iterator[Finding]:
        old_params, new_params = self.old.parameters(old), self.new.parameters(new)
        for key, (pointer, parameter) in new_params.items():
            label = f"{key[0]}:{parameter.get('name')}"
            if key not in old_params:
                kind = (
                    "parameter-added-required"
                    if parameter.get("required")
                    else "parameter-added-optional"
                )
                yield Finding(kind, pointer, label, None, parameter.get("name"), "request")
                continue
            old_pointer, old_parameter = old_params[key]
            del old_pointer
            if bool(old_parameter.get("required")) != bool(parameter.get("required")):
                kind = (
                    "parameter-became-required"
                    if parameter.get("required")
                    else "parameter-became-optional"
                )
                yield Finding(
                    kind,
                    pointer,
                    f"required:{label}",
                    bool(old_parameter.get("required")),
                    bool(parameter.get("required")),
                    "request",
                )
            for keyword in ("style", "explode"):
                if old_parameter.get(keyword) != parameter.get(keyword):
                    yield Finding(
                        "parameter-style-changed",
                        pointer,
                        f"{keyword}:{label}",
                        old_parameter.get(keyword),
                        parameter.get(keyword),
                        "request",
                    )
            if "schema" in old_parameter or "schema" in parameter:
                yield from self.schema(
                    old_parameter.get("schema", {}),
                    parameter.get("schema", {}),
                    "request",
                    pointer + "/schema",
                )
        for key, (pointer, parameter) in old_params.items():
            if key not in new_params:
                label = f"{key[0]}:{parameter.get('name')}"
                yield Finding(
                    "parameter-removed", pointer, label, parameter.get("name"), None, "request"
                )

    def _content(self, old: Any, new: Any, position: Position, pointer: str) -> Iterator[Finding]:
        old_content = old.get("content") or {} if isinstance(old, dict) else {}
        new_content = new.get("content") or {} if isinstance(new, dict) else {}
        for media in new_content:
            where = pointer_join(pointer, "content", media)
            if media not in old_content:
                yield Finding("media-type-added", where, f"media:{media}", None, media, position)
            else:
                old_schema = (old_content[media] or {}).get("schema", {})
                new_schema = (new_content[media] or {}).get("schema", {})
                yield from self.schema(old_schema, new_schema, position, where + "/schema")
        for media in old_content:
            if media not in new_content:
                where = pointer_join(pointer, "content", media)
                yield Finding("media-type-removed", where, f"media:{media}", media, None, position)

    def _request_body(self, old: _Operation, new: _Operation) -> Iterator[Finding]:
        old_body = self.old.follow(old.node.get("requestBody"))
        new_body = self.new.follow(new.node.get("requestBody"))
        where = pointer_join(new.pointer, "requestBody")
        if old_body is None and new_body is None:
            return
        if old_body is None:
            required = bool(new_body.get("required"))
            kind = "request-body-added-required" if required else "request-body-added-optional"
            yield Finding(kind, where, "requestBody", None, "requestBody", "request")
            return
        if new_body is None:
            yield Finding(
                "request-body-removed", where, "requestBody", "requestBody", None, "request"
            )
            return
        was, now = bool(old_body.get("required")), bool(new_body.get("required"))
        if was != now:
            kind = "request-body-became-required" if now else "request-body-became-optional"
            yield Finding(kind, where, "required", was, now, "request")
        yield from self._content(old_body, new_body, "request", where)

    def _responses(self, old: _Operation, new: _Operation) -> Iterator[Finding]:
        old_responses = {str(k).upper(): v for k, v in (old.node.get("responses") or {}).items()}
        new_responses = {str(k).upper(): v for k, v in (new.node.get("responses") or {}).items()}
        for code, response in new_responses.items():
            where = pointer_join(new.pointer, "responses", code)
            if code not in old_responses:
                success = code[:1] in ("1", "2", "3")
                kind = "response-status-added" if success else "response-error-status-added"
                yield Finding(kind, where, f"status:{code}", None, code, "response")
                continue
            yield from self._content(
                self.old.follow(old_responses[code]), self.new.follow(response), "response", where
            )
        for code in old_responses:
            if code not in new_responses:
                where = pointer_join(old.pointer, "responses", code)
                yield Finding(
                    "response-status-removed", where, f"status:{code}", code, None, "response"
                )


def compare_documents(old: Document, new: Document, *, paths: str | None = None) -> DiffReport:
    """Every change from `old` to `new`, each judged for clients and servers."""
    old_side, new_side = _Side(old), _Side(new)
    comparison = _Comparison(old_side, new_side)
    old_operations, new_operations = old_side.operations(paths), new_side.operations(paths)
    merged: dict[tuple[str, str, str], tuple[Finding, set[str], set[Position]]] = {}

    def record(finding: Finding, operation: str) -> None:
        key = (finding.kind, finding.location, finding.detail)
        entry = merged.setdefault(key, (finding, set(), set()))
        entry[1].add(operation)
        entry[2].add(finding.position)

    for key, new_operation in new_operations.items():
        old_operation = old_operations.get(key)
        if old_operation is None:
            record(
                Finding(
                    "operation-added",
                    new_operation.pointer,
                    "operation",
                    None,
                    new_operation.label,
                    "operation",
                ),
                new_operation.label,
            )
            continue
        for finding in comparison.operation(old_operation, new_operation):
            record(finding, new_operation.label)
    for key, old_operation in old_operations.items():
        if key not in new_operations:
            record(
                Finding(
                    "operation-removed",
                    old_operation.pointer,
                    "operation",
                    old_operation.label,
                    None,
                    "operation",
                ),
                old_operation.label,
            )
    changes = []
    for (kind, location, detail), (finding, operations, positions) in merged.items():
        ordered_positions = sorted(positions)
        clients, servers = judged(kind, ordered_positions)
        changes.append(
            Change(
                id=change_id(kind, location, detail),
                kind=kind,
                location=location,
                operations=sorted(operations),
                old=finding.old,
                new=finding.new,
                clients=clients,
                servers=servers,
                message=describe(finding, ordered_positions),
                positions=list(ordered_positions),
            )
        )
    changes.sort(key=lambda change: (change.location, change.kind, change.id))
    semver = advise_semver(changes, old.version, new.version)
    return DiffReport(old.source, new.source, changes, semver)
