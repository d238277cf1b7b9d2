"""The spec forms that generated clients read wrong, found in one document.

Each hazard was seen with openapi-generator 7.26 (go, java native, rust, typescript-fetch),
openapi-typescript 7.13 and openapi-python-client:

- `int64-one-of`: an int64 as `oneOf`/`anyOf` of integer and string. Java's Jackson fails ("2
  classes match"); Go and Rust get a two-variant wrapper for a number.
- `open-enum-closed`: a response property typed by an enum whose values the spec says are open
  (named in an `x-known-values`, or described as values a client "does not know"). Go, Java
  and Rust refuse to decode a value the enum lacks.
- `number-without-format`: `type: number` without `format`: float32 in Go.
- `integer-items-without-int64`: an array of integers (tensor, token or index data) without
  `format: int64`: int32 in Go, Java and Rust.
- `default-on-optional-request-field`: `default` on an optional property of a request schema:
  openapi-typescript makes the field required; Java sends the default itself.
- `servers-differ-in-path`: servers whose paths differ: generated clients take the first one's
  path as their base path.

`tests/spec/test_generator_hazards.py` runs it on the spec (the lint of `make test`);
`compare_documents` reports a hazard an edit brings to a place that existed as breaking for
clients (their generated bindings).
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from together_rl_spec import escape_pointer

from ._judging import Position

__all__ = ["HAZARDS", "Hazard", "added_hazards", "generator_hazards", "schemas_reached"]

HAZARDS: dict[str, str] = {
    "int64-one-of": "int64 as a oneOf of integer and string at",
    "open-enum-closed": "closed enum where clients must read unknown values at",
    "number-without-format": "number without format (float32 in Go) at",
    "integer-items-without-int64": "integer items without format int64 at",
    "default-on-optional-request-field": "default on optional request field",
    "servers-differ-in-path": "servers with different paths:",
}

_SCHEMAS = "#/components/schemas/"
_OPEN = re.compile(r"do(es)? not know|unknown (value|status)", re.IGNORECASE)
_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


@dataclass(frozen=True, order=True)
class Hazard:
    kind: str
    place: str  # `Schema.property[]`, as a person names it
    pointer: str  # JSON pointer of the node, `#/components/...`
    sides: tuple[Position, ...] = ()  # where the schema is used

    def __str__(self) -> str:
        return f"hazard: {HAZARDS[self.kind]} {self.place}"

    @property
    def what(self) -> str:
        """The hazard without its place: `default on optional request field`."""
        return HAZARDS[self.kind].removesuffix(" at").removesuffix(":")


def _at(root: Any, pointer: str) -> Any:
    node = root
    for part in pointer.removeprefix("#/").split("/") if pointer != "#" else ():
        key = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        elif isinstance(node, dict) and key in node:
            node = node[key]
        else:
            return None
    return node


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith("#/"):
                yield value
            elif not key.startswith("x-"):
                yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


def _reached(root: Any, starts: list[Any]) -> set[str]:
    """The component schemas `starts` reach through `$ref`s (any component kind on the way)."""
    seen: set[str] = set()
    todo = [ref for start in starts for ref in _refs(start)]
    while todo:
        ref = todo.pop()
        if ref in seen:
            continue
        seen.add(ref)
        todo.extend(_refs(_at(root, ref)))
    return {ref.removeprefix(_SCHEMAS) for ref in seen if ref.startswith(_SCHEMAS)}


def _operations(root: Any) -> Iterator[dict[str, Any]]:
    for item in (root.get("paths") or {}).values():
        if isinstance(item, dict):
            for method in _METHODS:
                if isinstance(item.get(method), dict):
                    yield {
                        **item[method],
                        "parameters": [
                            *item.get("parameters", []),
                            *item[method].get("parameters", []),
                        ],
                    }


def _open_enums(root: Any, schemas: dict[str, Any]) -> set[str]:
    named = {
        ref.removeprefix(_SCHEMAS)
        for node in schemas.values()
        if isinstance(node, dict) and isinstance(node.get("x-known-values"), dict)
        for ref in [node["x-known-values"].get("$ref", "")]
    }
    described = {
        name
        for name, node in schemas.items()
        if isinstance(node, dict) and "enum" in node and _OPEN.search(str(node.get("description")))
    }
    return named | described


def _types(node: Any, root: Any) -> set[str]:
    if isinstance(node, dict) and isinstance(node.get("$ref"), str):
        node = _at(root, node["$ref"])
    if not isinstance(node, dict):
        return set()
    found = node.get("type")
    return set(found) if isinstance(found, list) else {found} if isinstance(found, str) else set()


class _Walk:
    def __init__(self, root: Any, open_enums: set[str]) -> None:
        self.root = root
        self.open_enums = open_enums
        self.found: list[Hazard] = []
        self.side: set[Position] = set()

    def add(self, kind: str, place: str, pointer: str) -> None:
        self.found.append(Hazard(kind, place, pointer, tuple(sorted(self.side))))

    def schema(self, node: Any, place: str, pointer: str, side: set[Position]) -> None:
        if not isinstance(node, dict) or "$ref" in node:
            return
        for keyword in ("oneOf", "anyOf"):
            branches = node.get(keyword)
            if isinstance(branches, list):
                types = set().union(*(_types(branch, self.root) for branch in branches))
                if {"integer", "string"} <= types:
                    self.add("int64-one-of", place, pointer)
                for i, branch in enumerate(branches):
                    self.schema(branch, place, f"{pointer}/{keyword}/{i}", side)
        if "number" in _types(node, self.root) and "format" not in node:
            self.add("number-without-format", place, pointer)
        items = node.get("items")
        if isinstance(items, dict):
            target = _at(self.root, items["$ref"]) if "$ref" in items else items
            if "integer" in _types(items, self.root) and target.get("format") != "int64":
                self.add("integer-items-without-int64", f"{place}[]", f"{pointer}/items")
            self.schema(items, f"{place}[]", f"{pointer}/items", side)
        if isinstance(node.get("additionalProperties"), dict):
            self.schema(
                node["additionalProperties"], f"{place}.*", f"{pointer}/additionalProperties", side
            )
        required = set(node.get("required") or ())
        for name, prop in (node.get("properties") or {}).items():
            where, at = f"{place}.{name}", f"{pointer}/properties/{escape_pointer(name)}"
            if not isinstance(prop, dict):
                continue
            if "request" in side and "default" in prop and name not in required:
                self.add("default-on-optional-request-field", where, at)
            target = str(prop.get("$ref", "")).removeprefix(_SCHEMAS)
            if "response" in side and target in self.open_enums:
                self.add("open-enum-closed", where, at)
            self.schema(prop, where, at, side)


def generator_hazards(root: Any) -> list[Hazard]:
    """Every hazard of the document `root` (a parsed OpenAPI document), sorted."""
    if not isinstance(root, dict):
        return []
    schemas = (root.get("components") or {}).get("schemas") or {}
    operations = list(_operations(root))
    request = _reached(root, [[o.get("requestBody"), o["parameters"]] for o in operations])
    response = _reached(root, [o.get("responses") for o in operations])
    walk = _Walk(root, _open_enums(root, schemas))
    for name, node in schemas.items():
        side: set[Position] = set()
        if name in request:
            side.add("request")
        if name in response:
            side.add("response")
        walk.side = side
        walk.schema(node, name, f"{_SCHEMAS}{escape_pointer(name)}", side)
    paths = {
        urllib.parse.urlsplit(str(server.get("url", ""))).path.rstrip("/")
        for server in root.get("servers") or ()
        if isinstance(server, dict)
    }
    if len(paths) > 1:
        walk.side = {"request", "response"}
        walk.add("servers-differ-in-path", ", ".join(sorted(p or "/" for p in paths)), "#/servers")
    return sorted(set(walk.found))


def added_hazards(old: Any, new: Any) -> list[Hazard]:
    """The hazards of `new` that `old` lacks at a place `old` already had (a new place with a
    hazard breaks no code written against the old bindings; the lint finds it)."""
    before = set(generator_hazards(old))
    return [
        hazard
        for hazard in generator_hazards(new)
        if hazard not in before and _at(old, hazard.pointer) is not None
    ]


def schemas_reached(root: Any, operation: Any, path_item: Any) -> set[str]:
    """The names of the component schemas one operation reaches (its body, parameters and
    responses): where a hazard of a component is felt."""
    parameters = [*(path_item or {}).get("parameters", []), *operation.get("parameters", [])]
    return _reached(root, [operation.get("requestBody"), parameters, operation.get("responses")])
