"""Which operation of the spec a request is: ``(method, path)`` -> operation id and path params.

Read from the spec the emulator ships (identical to ``spec/openapi.yaml``, checked by the tests);
paths on the wire carry the server URL's path prefix (``/v1``), the spec's paths do not.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Any
from urllib.parse import urlsplit

from together_rl_emulator._spec import load_spec, resolve_ref

__all__ = ["Route", "all_operations", "find_route", "operation_spec"]

_PARAM = re.compile(r"\{([^}/]+)\}")


@dataclasses.dataclass(frozen=True)
class Route:
    operation_id: str
    method: str  # upper case
    template: str  # the spec's path, e.g. /rl/training-sessions/{session_id}
    path_params: dict[str, str]

    @property
    def label(self) -> str:
        return f"{self.operation_id} ({self.method} {self.template})"


@functools.cache
def _prefix() -> str:
    """The path of the spec's first server URL (``/v1``), prepended to every route on the wire."""
    servers = load_spec().get("servers") or [{"url": ""}]
    return urlsplit(servers[0]["url"]).path.rstrip("/")


@functools.cache
def _routes() -> list[tuple[re.Pattern[str], str, str, str]]:
    """(regex of the wire path, METHOD, template, operation id); literal segments before params."""
    routes = []
    for template, item in load_spec()["paths"].items():
        pattern = re.compile(
            "^" + re.escape(_prefix()) + _PARAM.sub(r"(?P<\1>[^/]+)", template) + "$"
        )
        for method, operation in item.items():
            if isinstance(operation, dict) and "operationId" in operation:
                routes.append((pattern, method.upper(), template, operation["operationId"]))
    # A literal segment wins over a parameter (``/payloads/upload-url`` vs ``/{payload_id}``).
    routes.sort(key=lambda r: (r[2].count("{"), r[2]))
    return routes


def find_route(method: str, path: str) -> Route | None:
    """The operation of the spec this request is, or None for a route the spec does not have."""
    for pattern, route_method, template, operation_id in _routes():
        if route_method != method.upper():
            continue
        match = pattern.match(path)
        if match:
            return Route(operation_id, route_method, template, match.groupdict())
    return None


def all_operations() -> list[str]:
    """Every operation id of the spec, in the spec's order."""
    return [
        operation["operationId"]
        for item in load_spec()["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "operationId" in operation
    ]


@functools.cache
def operation_spec(operation_id: str) -> dict[str, Any]:
    """The operation object, with ``parameters`` (path-level ones too) resolved."""
    for item in load_spec()["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict) and operation.get("operationId") == operation_id:
                declared = [*item.get("parameters", []), *operation.get("parameters", [])]
                return {**operation, "parameters": [resolve_ref(p) for p in declared]}
    raise KeyError(operation_id)
