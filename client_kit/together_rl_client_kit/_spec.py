"""The facts of `spec/openapi.yaml` the kit acts on, read from the spec (never typed again).

The document is the installed tree's one copy, read by `together_rl_spec` (the one reader of the
spec: its routes, server path and enums); the kit adds the poll route of an operation and judges
with its own code, without importing the emulator.
"""

from __future__ import annotations

from typing import Any

from together_rl_spec import (
    Route,
    enum_value,
    enum_values,
    match_route,
    request_example,
    route,
    spec_document,
    upload_threshold_bytes,
)

__all__ = [
    "Route",
    "enum_value",
    "enum_values",
    "match_route",
    "poll_route",
    "request_example",
    "route",
    "upload_threshold_bytes",
]


def spec() -> dict[str, Any]:
    """The parsed spec (parsed once by `together_rl_spec`; callers must not mutate it)."""
    return spec_document()


def poll_route(operation_id: str) -> Route | None:
    """The GET that polls the operation ``operation_id`` creates (the target of the link of its
    200 answer), or None for an operation that is not asynchronous."""
    posted = route(operation_id)
    operation = spec()["paths"][posted.template][posted.method.lower()]
    links = operation.get("responses", {}).get("200", {}).get("links", {})
    for link in links.values():
        target = route(link["operationId"])
        if target.method == "GET" and target.template.startswith(posted.template + "/"):
            return target
    return None
