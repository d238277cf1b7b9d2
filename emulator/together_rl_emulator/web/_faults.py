"""Fault injection for client testing (out of the spec, off by default).

`POST /_emulator/faults` arms a fault for the next `count` matching `/v1` requests:

- `http_429` / `http_503`: answered at once with a JSON error and `Retry-After`; nothing processed.
- `http_502_html`: answered at once with a 502 and an HTML body (as a proxy would); nothing
  processed.
- `drop_after_commit`: the request is processed fully (its state committed), then the connection
  is closed without an answer.
- `latency`: the request is processed, then the answer is held back for `latency_ms`.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass
from typing import Any

import orjson

from ..base import ApiError, invalid

__all__ = [
    "IMMEDIATE_KINDS",
    "KINDS",
    "MAX_LATENCY_MS",
    "Fault",
    "FaultInjector",
    "immediate_error",
    "parse_fault",
]

KINDS = ("http_429", "http_503", "http_502_html", "drop_after_commit", "latency")
IMMEDIATE_KINDS = ("http_429", "http_503", "http_502_html")
MAX_LATENCY_MS = 600_000


@dataclass
class Fault:
    id: str
    kind: str
    remaining: int
    route: str | None
    retry_after: int
    latency_ms: int

    def describe(self) -> dict[str, Any]:
        return {
            "fault_id": self.id,
            "kind": self.kind,
            "remaining": self.remaining,
            "route": self.route,
            "retry_after": self.retry_after,
            "latency_ms": self.latency_ms,
        }


def _int_field(body: dict[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = body.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise invalid(name, f"must be an integer, got {type(value).__name__}")
    if not low <= value <= high:
        raise invalid(name, f"must be between {low} and {high}, got {value}")
    return value


def parse_fault(body: Any, known_routes: set[str]) -> Fault:
    """Validate a `POST /_emulator/faults` body into a `Fault` (400 naming the field otherwise)."""
    if not isinstance(body, dict):
        raise invalid(None, "the body must be a JSON object")
    unknown = sorted(set(body) - {"kind", "count", "route", "retry_after", "latency_ms"})
    if unknown:
        raise invalid(unknown[0], "unknown field")
    kind = body.get("kind")
    if kind not in KINDS:
        raise invalid("kind", f"must be one of {', '.join(KINDS)}, got {kind!r}")
    route = body.get("route")
    if route is not None:
        if not isinstance(route, str):
            raise invalid("route", "must be a string like 'POST /v1/rl/training-sessions'")
        if route not in known_routes:
            raise invalid(
                "route", f"unknown route {route!r}; one of: {', '.join(sorted(known_routes))}"
            )
    return Fault(
        id=f"fault-{uuid.uuid4()}",
        kind=str(kind),
        remaining=_int_field(body, "count", 1, 1, 1_000_000),
        route=route,
        retry_after=_int_field(body, "retry_after", 1, 0, 3600),
        latency_ms=_int_field(body, "latency_ms", 0, 0, MAX_LATENCY_MS),
    )


class FaultInjector:
    """Armed faults per API key, consumed in the order they were armed. A key's faults hit only
    that key's requests, so one tenant's tests can neither disturb nor detect another's."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._faults: dict[str, list[Fault]] = {}

    def arm(self, owner: str, fault: Fault) -> None:
        with self._lock:
            self._faults.setdefault(owner, []).append(fault)

    def clear(self, owner: str) -> int:
        with self._lock:
            return len(self._faults.pop(owner, []))

    def armed(self, owner: str) -> list[dict[str, Any]]:
        with self._lock:
            return [f.describe() for f in self._faults.get(owner, [])]

    def take(self, owner: str | None, route_key: str | None) -> Fault | None:
        """Consume one use of the first fault of `owner` matching this request (`route_key`
        None: an unmatched /v1 path). Requests without a known key are never faulted."""
        with self._lock:
            faults = self._faults.get(owner, []) if owner is not None else []
            for fault in faults:
                if fault.route is None or fault.route == route_key:
                    fault.remaining -= 1
                    if fault.remaining <= 0:
                        faults.remove(fault)
                    return fault
        return None


def immediate_error(fault: Fault) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) of an `http_*` fault."""
    if fault.kind == "http_502_html":
        body = (
            b"<html><head><title>502 Bad Gateway</title></head><body>"
            b"<center><h1>502 Bad Gateway</h1></center><hr><center>emulator</center></body></html>"
        )
        return 502, {"content-type": "text/html; charset=utf-8"}, body
    status = 429 if fault.kind == "http_429" else 503
    reason = (
        "Rate limited (injected fault)" if status == 429 else "Service unavailable (injected fault)"
    )
    error = ApiError(
        status,
        f"{reason}; retry after {fault.retry_after} s",
        type="rate_limit_error" if status == 429 else "service_unavailable",
        code="injected_fault",
    )
    return (
        status,
        {"content-type": "application/json", "retry-after": str(fault.retry_after)},
        orjson.dumps(error.body()),
    )
