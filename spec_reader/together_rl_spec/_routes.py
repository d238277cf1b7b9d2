"""The operations as they are on the wire: the server path every route starts with, one
`Route` per operation (method, template, wire path, matching) and the route a request hits."""

from __future__ import annotations

import dataclasses
import functools
import re
import urllib.parse
from collections.abc import Mapping
from typing import Any

from ._reading import SpecRoot, root_or_installed, spec_document

__all__ = ["Route", "match_route", "route", "routes", "server_path", "servers_path"]

_PARAM = re.compile(r"\{([^}/]+)\}")
_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def server_path(root: SpecRoot | None = None) -> str:
    """The path of the first server URL (`https://api.together.ai/v1` -> `/v1`; `` if none),
    the prefix of every route on the wire."""
    return servers_path(root_or_installed(root).get("servers"))


def servers_path(servers: Any) -> str:
    """The path of the first URL of a `servers` list, without its trailing slash (`` for none
    or a malformed list): a document's, a path item's or an operation's."""
    first = servers[0] if isinstance(servers, list) and servers else None
    url = first.get("url") if isinstance(first, dict) else None
    return urllib.parse.urlsplit(url).path.rstrip("/") if isinstance(url, str) else ""


@dataclasses.dataclass(frozen=True)
class Route:
    """One operation as it is on the wire: `pattern` matches its path (the server path
    included) and captures the path parameters; `path_params` holds the ones a request gave
    (empty on a route not matched against a request)."""

    operation_id: str
    method: str  # upper case
    template: str  # the document's path, without the server path
    pattern: re.Pattern[str]
    prefix: str = ""  # the server path (`/v1`)
    path_params: Mapping[str, str] = dataclasses.field(default_factory=dict, compare=False)

    @property
    def label(self) -> str:
        """`getThing (GET /things/{id})`: how a report names the operation."""
        return f"{self.operation_id} ({self.method} {self.template})"

    def path(self, params: Mapping[str, str] | None = None) -> str:
        """The path on the wire (the server path first), every template parameter filled in
        from `params` (KeyError naming one it lacks)."""
        given = params or {}
        return self.prefix + _PARAM.sub(lambda found: given[found.group(1)], self.template)

    def match(self, path: str) -> dict[str, str] | None:
        """The path parameters of a wire `path` of this route, or None when it is another."""
        found = self.pattern.match(path)
        return None if found is None else found.groupdict()


def _routes_of(root: SpecRoot) -> tuple[Route, ...]:
    prefix = server_path(root)
    found = []
    for template, item in root.get("paths", {}).items():
        for method in _METHODS:
            operation = item.get(method) if isinstance(item, dict) else None
            if not isinstance(operation, dict) or "operationId" not in operation:
                continue
            parts = [re.escape(part) for part in _PARAM.split(template)]
            parts[1::2] = [f"(?P<{name}>[^/]+)" for name in _PARAM.findall(template)]
            wire = re.compile(f"^{re.escape(prefix)}{''.join(parts)}$")
            found.append(Route(operation["operationId"], method.upper(), template, wire, prefix))
    # at the first segment where two templates differ, a literal one comes first
    # (`/payloads/upload-url` before `/payloads/{payload_id}`)
    found.sort(key=lambda route: [part.startswith("{") for part in route.template.split("/")])
    return tuple(found)


@functools.cache
def _installed_routes() -> tuple[Route, ...]:
    return _routes_of(spec_document())


def routes(root: SpecRoot | None = None) -> tuple[Route, ...]:
    """Every operation's route, literal segments before parameters (see `match_route`)."""
    return _installed_routes() if root is None else _routes_of(root)


def route(operation_id: str, root: SpecRoot | None = None) -> Route:
    """The route of `operation_id`; KeyError naming an id the document does not have."""
    for found in routes(root):
        if found.operation_id == operation_id:
            return found
    raise KeyError(f"the spec has no operationId {operation_id!r}")


def match_route(
    method: str, path: str, root: SpecRoot | None = None
) -> tuple[Route, dict[str, str]] | None:
    """The route a request (`method`, wire `path`) hits and its path parameters; a literal
    segment wins over a parameter, whatever the order of the paths. None outside the spec."""
    for candidate in routes(root):
        if candidate.method == method.upper():
            params = candidate.match(path)
            if params is not None:
                return candidate, params
    return None
