"""The facts of `spec/openapi.yaml` the kit acts on, read from the spec (never typed again).

The document is the installed tree's one copy, read by `together_rl_spec` (the one reader of the
spec); the kit judges with its own code, without importing the emulator.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from together_rl_spec import (
    enum_value,
    enum_values,
    request_example,
    server_path,
    spec_document,
    upload_threshold_bytes,
)
from together_rl_spec import match_route as spec_match_route

__all__ = [
    "Route",
    "api_prefix",
    "enum_value",
    "enum_values",
    "match_route",
    "poll_route",
    "request_example",
    "route",
    "upload_threshold_bytes",
]

_METHODS = ("get", "post", "put", "patch", "delete")


@dataclass(frozen=True)
class Route:
    """One operation of the spec: its id, method and full path template (with the `/v1` prefix)."""

    operation_id: str
    method: str
    template: str
    pattern: re.Pattern[str]

    def path(self, params: dict[str, str]) -> str:
        """The concrete path for ``params`` (every template variable must be given)."""
        return re.sub(r"\{([a-z_]+)\}", lambda m: params[m.group(1)], self.template)


def spec() -> dict[str, Any]:
    """The parsed spec (parsed once by `together_rl_spec`; callers must not mutate it)."""
    return spec_document()


@functools.cache
def api_prefix() -> str:
    """The path prefix of every route: the path of the spec's first server URL (`/v1`)."""
    return server_path()


@functools.cache
def _routes() -> dict[str, Route]:
    routes: dict[str, Route] = {}
    for path, item in spec()["paths"].items():
        for method in _METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            template = api_prefix() + path
            regex = re.sub(r"\\\{([a-z_]+)\\\}", r"(?P<\1>[^/]+)", re.escape(template))
            routes[operation["operationId"]] = Route(
                operation["operationId"], method.upper(), template, re.compile(f"^{regex}$")
            )
    return routes


def route(operation_id: str) -> Route:
    """The route of ``operation_id``; a `KeyError` names an id the spec does not have."""
    try:
        return _routes()[operation_id]
    except KeyError:
        raise KeyError(f"the spec has no operationId {operation_id!r}") from None


def match_route(method: str, path: str) -> tuple[Route, dict[str, str]] | None:
    """The spec route a request hits (a literal segment wins over a parameter), with its path
    parameters; None outside the spec."""
    found = spec_match_route(method, path)
    if found is None:
        return None
    return _routes()[found[0].operation_id], found[1]


def poll_route(operation_id: str) -> Route | None:
    """The GET that polls the operation ``operation_id`` creates (the target of the link of its
    200 answer), or None for an operation that is not asynchronous."""
    posted = route(operation_id)
    operation = spec()["paths"][posted.template[len(api_prefix()) :]][posted.method.lower()]
    links = operation.get("responses", {}).get("200", {}).get("links", {})
    for link in links.values():
        target = route(link["operationId"])
        if target.method == "GET" and target.template.startswith(posted.template + "/"):
            return target
    return None
