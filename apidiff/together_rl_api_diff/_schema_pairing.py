"""Schemas that two documents name differently, paired by where they are used.

Walking the operations both documents have (same method, same URL path), the two sides' schemas
are read side by side: the request body, each response, each parameter, and inside them the
same property, the items, the map values and the members of an `allOf`/`oneOf`/`anyOf`. Where
both sides name a component there, that is one vote for the pair. The pairs with most votes win,
one upstream name per name of ours; `rename_schemas` then gives the upstream document our names,
so the comparison names every change after our component.
"""

from __future__ import annotations

import copy
import difflib
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from together_rl_spec import Document, DocumentError, Resolver, servers_path

__all__ = [
    "SchemaPair", "follow_ref", "operation_index", "pair_schemas", "rename_schemas", "resolver",
]  # fmt: skip

_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_PATH_PARAMETER = re.compile(r"\{[^}/]*\}")
_SCHEMAS = "#/components/schemas/"


@dataclass(frozen=True)
class SchemaPair:
    """Our component and the upstream one used in the same places (`votes` of them)."""

    ours: str
    theirs: str
    votes: int

    @property
    def renamed(self) -> bool:
        """Named otherwise, beyond a namespace prefix (`RL.Sample` is `Sample`)."""
        return self.theirs.rsplit(".", 1)[-1] != self.ours


def operation_index(document: Document) -> dict[tuple[str, str], tuple[str, dict[str, Any]]]:
    """(method, URL path with unnamed parameters) -> (path as written, operation)."""
    root = document.root
    found: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
    for path, item in (root.get("paths") or {}).items():
        if not isinstance(item, dict):
            continue
        for method in _METHODS:
            operation = item.get(method)
            if not isinstance(operation, dict):
                continue
            servers = operation.get("servers") or item.get("servers") or root.get("servers")
            url_path = servers_path(servers) + str(path)
            found[(method, _PATH_PARAMETER.sub("{}", url_path))] = (str(path), operation)
    return found


def resolver(document: Document) -> Resolver:
    """The one resolver (`together_rl_spec.Resolver`) over a document and its files."""
    return Resolver(document.root, document.source, document.read_beside)


def follow_ref(resolver: Resolver, node: Any) -> tuple[Any, str | None]:
    """The node a `$ref` chain ends at (None where it points nowhere), and the first component
    schema name on the way. Siblings of a `$ref` are left out: what is compared is the named
    schema."""
    name = None
    seen: set[str] = set()
    while isinstance(node, dict) and isinstance(node.get("$ref"), str):
        try:
            node, canonical = resolver.resolve(node["$ref"], resolver.owner(node))
        except DocumentError:
            return None, name
        if canonical in seen:
            return None, name
        seen.add(canonical)
        if canonical.startswith(_SCHEMAS) and name is None:
            name = canonical.removeprefix(_SCHEMAS).replace("~1", "/").replace("~0", "~")
    return node, name


class _Walk:
    """Reads two documents' schemas side by side and counts the component pairs it meets."""

    def __init__(self, ours: Document, theirs: Document) -> None:
        self.ours = resolver(ours)
        self.theirs = resolver(theirs)
        self.votes: Counter[tuple[str, str]] = Counter()
        self._seen: set[tuple[int, int]] = set()

    @staticmethod
    def _members(node: dict[str, Any], keyword: str) -> list[Any]:
        members = node.get(keyword)
        if not isinstance(members, list):
            return []
        return [m for m in members if not (isinstance(m, dict) and m.get("type") == "null")]

    def schema(self, ours: Any, theirs: Any) -> None:
        ours, our_name = follow_ref(self.ours, ours)
        theirs, their_name = follow_ref(self.theirs, theirs)
        if our_name is not None and their_name is not None:
            self.votes[(our_name, their_name)] += 1
        if not isinstance(ours, dict) or not isinstance(theirs, dict):
            return
        key = (id(ours), id(theirs))
        if key in self._seen:
            return
        self._seen.add(key)
        for keyword in ("anyOf", "oneOf", "allOf"):
            our_members = self._members(ours, keyword)
            their_members = self._members(theirs, keyword)
            if len(our_members) == 1 and keyword not in theirs:  # a nullable X is X
                self.schema(our_members[0], theirs)
            elif len(their_members) == 1 and keyword not in ours:
                self.schema(ours, their_members[0])
            elif len(our_members) == len(their_members):
                for our_member, their_member in zip(our_members, their_members, strict=True):
                    self.schema(our_member, their_member)
        our_properties = ours.get("properties") or {}
        their_properties = theirs.get("properties") or {}
        for name in our_properties:
            if name in their_properties:
                self.schema(our_properties[name], their_properties[name])
        for keyword in ("items", "additionalProperties"):
            if isinstance(ours.get(keyword), dict) and isinstance(theirs.get(keyword), dict):
                self.schema(ours[keyword], theirs[keyword])

    def content(self, ours: Any, theirs: Any) -> None:
        ours, _ = follow_ref(self.ours, ours)
        theirs, _ = follow_ref(self.theirs, theirs)
        if not isinstance(ours, dict) or not isinstance(theirs, dict):
            return
        our_content, their_content = ours.get("content") or {}, theirs.get("content") or {}
        for media in our_content:
            if media in their_content:
                self.schema(
                    (our_content[media] or {}).get("schema"),
                    (their_content[media] or {}).get("schema"),
                )

    def _parameters(self, root: Resolver, operation: dict[str, Any]) -> dict[str, Any]:
        found = {}
        for raw in operation.get("parameters") or []:
            parameter, _ = follow_ref(root, raw)
            if isinstance(parameter, dict):
                found[f"{parameter.get('in')}:{parameter.get('name')}"] = parameter.get("schema")
        return found

    def operation(self, ours: dict[str, Any], theirs: dict[str, Any]) -> None:
        self.content(ours.get("requestBody"), theirs.get("requestBody"))
        their_responses = {str(k).upper(): v for k, v in (theirs.get("responses") or {}).items()}
        for code, response in (ours.get("responses") or {}).items():
            if str(code).upper() in their_responses:
                self.content(response, their_responses[str(code).upper()])
        their_parameters = self._parameters(self.theirs, theirs)
        for name, schema in self._parameters(self.ours, ours).items():
            if name in their_parameters:
                self.schema(schema, their_parameters[name])


def _ranked(votes: Counter[tuple[str, str]]) -> Iterator[tuple[tuple[str, str], int]]:
    """Most votes first; among equals, the most alike names."""

    def likeness(pair: tuple[str, str]) -> float:
        ours, theirs = pair
        return difflib.SequenceMatcher(None, ours, theirs.rsplit(".", 1)[-1]).ratio()

    yield from sorted(votes.items(), key=lambda entry: (-entry[1], -likeness(entry[0]), entry[0]))


def pair_schemas(ours: Document, theirs: Document, *, scope: str | None = None) -> list[SchemaPair]:
    """One upstream component per component of ours, paired where the operations (whose URL
    path contains `scope`) use them."""
    walk = _Walk(ours, theirs)
    their_operations = operation_index(theirs)
    for key, (_, operation) in operation_index(ours).items():
        if key in their_operations and (scope is None or scope in key[1]):
            walk.operation(operation, their_operations[key][1])
    pairs, taken_ours, taken_theirs = [], set(), set()
    for (our_name, their_name), votes in _ranked(walk.votes):
        if our_name in taken_ours or their_name in taken_theirs:
            continue
        taken_ours.add(our_name)
        taken_theirs.add(their_name)
        pairs.append(SchemaPair(our_name, their_name, votes))
    return sorted(pairs, key=lambda pair: pair.ours)


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _rewrite_refs(node: Any, refs: dict[str, str]) -> Any:
    if isinstance(node, dict):
        rewritten = {key: _rewrite_refs(value, refs) for key, value in node.items()}
        ref = node.get("$ref")
        if isinstance(ref, str):
            head, slash, rest = ref.removeprefix(_SCHEMAS).partition("/")
            if ref.startswith(_SCHEMAS) and head in refs:
                rewritten["$ref"] = _SCHEMAS + refs[head] + slash + rest
        return rewritten
    if isinstance(node, list):
        return [_rewrite_refs(value, refs) for value in node]
    return node


def rename_schemas(document: Document, pairs: list[SchemaPair], ours: Document) -> Document:
    """`document` with each paired component under our name; an unpaired one that would take a
    name of ours keeps its own with ` (upstream)` added."""
    root = copy.deepcopy(document.root)
    schemas = (root.get("components") or {}).get("schemas") or {}
    our_names = set((ours.root.get("components") or {}).get("schemas") or {})
    new_names = {pair.theirs: pair.ours for pair in pairs}
    for name in schemas:
        if name not in new_names and name in our_names:
            new_names[name] = f"{name} (upstream)"
    if not new_names:
        return Document(document.source, root)
    refs = {_escape(old): _escape(new) for old, new in new_names.items()}
    root = _rewrite_refs(root, refs)
    schemas = root["components"]["schemas"]
    renamed = {new_names.get(name, name): schema for name, schema in schemas.items()}
    root["components"]["schemas"] = renamed
    return Document(document.source, root)
