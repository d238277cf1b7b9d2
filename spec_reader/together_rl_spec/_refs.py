"""`$ref` resolution over a document and the files it refers to: JSON pointers, chains of
references, sibling keywords, and relative references to other files (`./schemas/pet.yaml`,
`../common.json#/Error`), each resolved against the file that holds it.

Self-contained: `Resolver(root, source, read=...)` needs only the parsed root, the name to
report it under, and a function that reads a file by its path relative to the root document's
directory. Every reference is checked once (`check_references`), so a dangling `$ref`, a
missing file or a cycle of references is reported, naming the file and the JSON pointer,
before any comparison starts.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterator
from typing import Any

from ._loading import DocumentError, parse_data

__all__ = ["ReadBeside", "Resolver", "escape_pointer", "pointer_join"]

#: reads a file given its path relative to the root document's directory
ReadBeside = Callable[[str], str]
_ROOT = "."


def escape_pointer(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def pointer_join(base: str, *tokens: str | int) -> str:
    return base + "".join("/" + escape_pointer(str(token)) for token in tokens)


def _dicts(node: Any) -> Iterator[dict[str, Any]]:
    """Every dict under `node` (pointers are only worked out for an error: `_place`)."""
    stack: list[Any] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            yield current
            stack.extend(v for v in current.values() if isinstance(v, dict | list))
        elif isinstance(current, list):
            stack.extend(v for v in current if isinstance(v, dict | list))


def _place(root: Any, target: dict[str, Any]) -> str:
    """The JSON pointer of `target`'s `$ref` under `root`."""
    stack: list[tuple[Any, str]] = [(root, "#")]
    while stack:
        current, where = stack.pop()
        if current is target:
            return pointer_join(where, "$ref")
        items = current.items() if isinstance(current, dict) else enumerate(current)
        for key, value in items:
            if isinstance(value, dict | list):
                stack.append((value, pointer_join(where, str(key))))
    return "$ref"


def _pointer_target(root: Any, fragment: str) -> Any:
    node = root
    for raw in fragment.split("/")[1:] if fragment else []:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise LookupError(token)
    return node


class Resolver:
    """Resolves the `$ref`s of one document and of the files it refers to."""

    def __init__(self, root: dict[str, Any], source: str, read: ReadBeside | None = None) -> None:
        self.root = root
        self.source = source
        self._read = read
        self._files: dict[str, Any] = {_ROOT: root}
        self._owner: dict[int, str] = {}  # id of a node of another file -> that file
        self._targets: dict[tuple[str, str], tuple[Any, str]] = {}
        self._with_siblings: dict[int, dict[str, Any]] = {}

    def display(self, file: str) -> str:
        """The name a file is reported under: the root's source, or a path beside it."""
        if file == _ROOT:
            return self.source
        revision, colon, path = self.source.partition(":")  # REV:PATH (no `:` in a git ref)
        beside = posixpath.normpath(posixpath.join(posixpath.dirname(path or revision), file))
        return f"{revision}:{beside}" if colon else beside

    def _file(self, file: str, referrer: str, place: str) -> Any:
        loaded = self._files.get(file)
        if loaded is not None:
            return loaded
        if self._read is None:
            raise DocumentError(
                self.display(referrer), place, f"$ref to {file!r}: the document has no directory"
            )
        try:
            text = self._read(file)
        except (OSError, UnicodeDecodeError, DocumentError) as error:
            reason = getattr(error, "reason", None) or getattr(error, "strerror", None) or error
            raise DocumentError(
                self.display(referrer), place, f"$ref to {self.display(file)}: {reason}"
            ) from error
        loaded = parse_data(text, self.display(file))
        self._files[file] = loaded
        for node in _dicts(loaded):
            self._owner[id(node)] = file
        return loaded

    def resolve(self, ref: str, owner: str = _ROOT, place: str = "$ref") -> tuple[Any, str]:
        """(the node `ref` points at, its canonical name): `#/...` for the root document,
        `schemas/pet.yaml#/...` for another file. DocumentError when it points nowhere."""
        cached = self._targets.get((owner, ref))
        if cached is not None:
            return cached
        location, _, fragment = ref.partition("#")
        if location:
            base = posixpath.dirname(owner) if owner != _ROOT else ""
            file = posixpath.normpath(posixpath.join(base, location))
            if file == posixpath.normpath(self._root_name()):
                file = _ROOT
            root = self._file(file, owner, place)
        else:
            file, root = owner, self._files[owner]
        try:
            node = _pointer_target(root, fragment)
        except LookupError:
            raise DocumentError(self.display(owner), place, f"dangling $ref {ref!r}") from None
        name = f"#{fragment}" if file == _ROOT else f"{file}#{fragment}"
        self._targets[(owner, ref)] = (node, name)
        return node, name

    def owner(self, node: Any) -> str:
        """The file `node` was read from, as `resolve` takes it (the root document's name for
        a node of the root)."""
        return self._owner.get(id(node), _ROOT)

    def _root_name(self) -> str:
        """The root document's own file name, so a file that refers back to it finds it."""
        revision, colon, path = self.source.partition(":")
        return posixpath.basename(path if colon else revision)

    def target(self, ref: str, place: str = "$ref") -> Any:
        """The node a `$ref` of the root document points at."""
        return self.resolve(ref, _ROOT, place)[0]

    def check_references(self) -> None:
        """Raise DocumentError at the first `$ref` that is not a string, points nowhere (a
        missing file, a missing JSON pointer) or starts a cycle of references."""
        index = 0
        while index < len(self._files):  # files found on the way are appended, then checked
            file = list(self._files)[index]
            index += 1
            for node in _dicts(self._files[file]):
                if "$ref" not in node:
                    continue
                try:
                    if not isinstance(node["$ref"], str):
                        raise DocumentError(self.display(file), "$ref", "$ref is not a string")
                    self.resolve(node["$ref"], file)
                except DocumentError as error:
                    raise self._located(error, file, node) from None
                self._check_chain(node, file)

    def _located(self, error: DocumentError, file: str, node: dict[str, Any]) -> DocumentError:
        """The error about `node`'s `$ref`, with its JSON pointer in `file` (worked out only
        then: the walk itself keeps no pointers)."""
        if error.place != "$ref":
            return error
        return DocumentError(error.source, _place(self._files[file], node), error.reason)

    def _check_chain(self, node: dict[str, Any], file: str) -> None:
        seen: list[str] = []
        start = node
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            owner = self.owner(node)
            try:
                target, name = self.resolve(node["$ref"], owner)
            except DocumentError as error:
                raise self._located(error, owner, node) from None
            if name in seen:
                chain = " -> ".join([*seen, name])
                cycle = DocumentError(self.display(file), "$ref", f"$ref cycle: {chain}")
                raise self._located(cycle, file, start)
            seen.append(name)
            node = target

    def follow(self, node: Any) -> tuple[Any, str | None]:
        """Resolve a chain of `$ref`s: (the node, the canonical name of the last reference
        followed, or None).

        A `$ref` with sibling keywords becomes `allOf: [target, siblings]` (OpenAPI 3.1 reads
        siblings beside `$ref`; tools for 3.0 commonly do too).
        """
        last: str | None = None
        seen: set[str] = set()
        while isinstance(node, dict) and "$ref" in node:
            target, name = self.resolve(node["$ref"], self.owner(node))
            if name in seen:
                return {}, last  # unreachable after check_references
            seen.add(name)
            siblings = {key: value for key, value in node.items() if key != "$ref"}
            last = name
            if siblings:
                merged = self._with_siblings.get(id(node))
                if merged is None:
                    merged = {"allOf": [target, siblings]}
                    self._with_siblings[id(node)] = merged
                return merged, last
            node = target
        return node, last
