"""The operations of one OpenAPI document, as the comparison reads them: each operation's URL
path (its server URL's path joined with its path), webhooks, callbacks, parameters, response
headers and security."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from together_rl_spec import Document, Resolver, pointer_join, servers_path, wire_document

from ._keywords import Keywords
from ._schemas import SchemaViews
from ._security import Requirement, requirement

__all__ = ["DocumentSide", "Operation"]

_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_PATH_PARAMETER = re.compile(r"\{[^}/]*\}")


@dataclass
class Operation:
    method: str
    path: str
    pointer: str
    node: dict[str, Any]
    path_item: dict[str, Any]
    title: str = ""  # a webhook's or callback's name, instead of `METHOD path`

    @property
    def label(self) -> str:
        return self.title or f"{self.method.upper()} {self.path}"


def _methods(item: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(item, dict):
        for method in _METHODS:
            operation = item.get(method)
            if isinstance(operation, dict):
                yield method, operation


class DocumentSide:
    """One document with its resolver and schema views."""

    def __init__(self, document: Document, keywords: Keywords) -> None:
        # compared as the wire reads it: an int64 shown in one JSON form takes both
        document = Document(document.source, wire_document(document.root), document.read_beside)
        self.document = document
        self.resolver = Resolver(document.root, document.source, document.read_beside)
        self.resolver.check_references()
        self.views = SchemaViews(self.resolver, keywords)

    def follow(self, node: Any) -> Any:
        return self.resolver.follow(node)[0]

    def operations(self, prefix: str | None) -> dict[tuple[str, str], Operation]:
        """(method, URL path with unnamed parameters) -> operation, for URL paths that contain
        `prefix` (`/rl/` finds `/rl/...` under a `/v1` server URL and `/v1/rl/...` alike)."""
        found: dict[tuple[str, str], Operation] = {}
        for path, raw_item in (self.document.root.get("paths") or {}).items():
            item = self.follow(raw_item)
            if not isinstance(item, dict):
                continue
            for method in _METHODS:
                operation = item.get(method)
                if isinstance(operation, dict):
                    servers = operation.get("servers") or item.get("servers")
                    url_path = servers_path(servers or self.document.root.get("servers")) + str(
                        path
                    )
                    if prefix and prefix not in url_path:
                        continue
                    key = (method, _PATH_PARAMETER.sub("{}", url_path))
                    pointer = pointer_join("#/paths", str(path), method)
                    found[key] = Operation(method, str(path), pointer, operation, item)
        return found

    def webhooks(self) -> dict[tuple[str, str], Operation]:
        """(name, method) -> the operation of an OpenAPI 3.1 webhook."""
        found: dict[tuple[str, str], Operation] = {}
        for name, raw_item in (self.document.root.get("webhooks") or {}).items():
            item = self.follow(raw_item)
            for method, operation in _methods(item):
                pointer = pointer_join("#/webhooks", str(name), method)
                title = f"webhook {name} {method.upper()}"
                found[(str(name), method)] = Operation(
                    method, str(name), pointer, operation, item, title
                )
        return found

    def callbacks(self, parent: Operation) -> dict[tuple[str, str, str], Operation]:
        """(callback name, URL expression, method) -> the operation of one callback."""
        found: dict[tuple[str, str, str], Operation] = {}
        for name, raw_callback in (parent.node.get("callbacks") or {}).items():
            callback = self.follow(raw_callback)
            if not isinstance(callback, dict):
                continue
            for expression, raw_item in callback.items():
                item = self.follow(raw_item)
                for method, operation in _methods(item):
                    pointer = pointer_join(
                        parent.pointer, "callbacks", str(name), str(expression), method
                    )
                    title = f"callback {name} {method.upper()} {expression}"
                    found[(str(name), str(expression), method)] = Operation(
                        method, str(expression), pointer, operation, item, title
                    )
        return found

    def parameters(self, operation: Operation) -> dict[tuple[str, str], tuple[str, Any]]:
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

    def headers(self, response: Any) -> dict[str, tuple[str, dict[str, Any]]]:
        """lower-case name -> (name, header) of a response's headers."""
        listed = response.get("headers") if isinstance(response, dict) else None
        found: dict[str, tuple[str, dict[str, Any]]] = {}
        for name, raw in (listed or {}).items():
            header = self.follow(raw)
            if isinstance(header, dict) and str(name).lower() != "content-type":
                found[str(name).lower()] = (str(name), header)
        return found

    def security_scheme(self, name: str) -> dict[str, Any]:
        schemes = (self.document.root.get("components") or {}).get("securitySchemes") or {}
        found = self.follow(schemes.get(name, {}))
        return found if isinstance(found, dict) else {}

    def security(self, operation: Operation) -> set[Requirement]:
        """The alternatives of the operation's security (an empty one: anonymous callers)."""
        listed = operation.node.get("security", self.document.root.get("security"))
        if not listed:
            return {frozenset()}
        return {requirement(item) for item in listed if isinstance(item, dict)}
