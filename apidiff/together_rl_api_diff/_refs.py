"""`$ref` resolution inside one document: JSON pointers, chains of references, siblings.

Every reference is checked once when the document is loaded (`check_references`), so a
dangling `$ref` is reported before any comparison starts.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ._loading import DocumentError

__all__ = ["Resolver", "escape_pointer", "pointer_join"]


def escape_pointer(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def pointer_join(base: str, *tokens: str | int) -> str:
    return base + "".join("/" + escape_pointer(str(token)) for token in tokens)


def _walk(node: Any, pointer: str) -> Iterator[tuple[str, dict[str, Any]]]:
    stack: list[tuple[Any, str]] = [(node, pointer)]
    while stack:
        current, where = stack.pop()
        if isinstance(current, dict):
            if "$ref" in current:
                yield where, current
            for key, value in current.items():
                if isinstance(value, dict | list):
                    stack.append((value, pointer_join(where, str(key))))
        elif isinstance(current, list):
            for index, value in enumerate(current):
                if isinstance(value, dict | list):
                    stack.append((value, pointer_join(where, index)))


class Resolver:
    """Resolves local `$ref`s of one document (`#/...` JSON pointers)."""

    def __init__(self, root: dict[str, Any], source: str) -> None:
        self.root = root
        self.source = source
        self._targets: dict[str, Any] = {}
        self._with_siblings: dict[int, dict[str, Any]] = {}

    def target(self, ref: str, place: str = "$ref") -> Any:
        """The node `ref` points at; DocumentError when it points nowhere."""
        found = self._targets.get(ref)
        if found is not None:
            return found
        if not ref.startswith("#"):
            raise DocumentError(self.source, place, f"external $ref {ref!r} is not supported")
        node: Any = self.root
        for raw in ref[1:].split("/")[1:]:
            token = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                raise DocumentError(self.source, place, f"dangling $ref {ref!r}")
        self._targets[ref] = node
        return node

    def check_references(self) -> None:
        """Raise DocumentError at the first `$ref` that is not a string or points nowhere."""
        for where, node in _walk(self.root, "#"):
            ref = node["$ref"]
            if not isinstance(ref, str):
                raise DocumentError(self.source, where, "$ref is not a string")
            self.target(ref, pointer_join(where, "$ref"))

    def follow(self, node: Any) -> tuple[Any, str | None]:
        """Resolve a chain of `$ref`s: (the node, the last reference followed or None).

        A `$ref` with sibling keywords becomes `allOf: [target, siblings]` (OpenAPI 3.1 reads
        siblings beside `$ref`; tools for 3.0 commonly do too).
        """
        last: str | None = None
        seen: set[str] = set()
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            if ref in seen:
                return {}, last  # a reference to itself: no constraint at all
            seen.add(ref)
            siblings = {key: value for key, value in node.items() if key != "$ref"}
            last = ref
            target = self.target(ref)
            if siblings:
                merged = self._with_siblings.get(id(node))
                if merged is None:
                    merged = {"allOf": [target, siblings]}
                    self._with_siblings[id(node)] = merged
                return merged, last
            node = target
        return node, last
