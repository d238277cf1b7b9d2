"""Test-only counters served at `GET /_emulator/stats`: requests per route, operations, replays.

Counters are kept per API key (its owner id): a key sees only its own traffic, so no key can
detect another's activity. Requests without a valid key are counted nowhere.
"""

from __future__ import annotations

import threading
from collections import Counter, defaultdict

__all__ = ["Stats"]


class Stats:
    """Thread-safe counters. Kept in memory only: a restart starts them again from zero."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self._created: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self._replays: defaultdict[str, Counter[str]] = defaultdict(Counter)

    def count_request(self, owner: str, route_key: str) -> None:
        """`route_key` is `"METHOD /v1/route/{template}"`."""
        with self._lock:
            self._requests[owner][route_key] += 1

    def count_operation_created(self, owner: str, kind: str) -> None:
        with self._lock:
            self._created[owner][kind] += 1

    def count_replay(self, owner: str, kind: str) -> None:
        with self._lock:
            self._replays[owner][kind] += 1

    def snapshot(self, owner: str) -> dict[str, dict[str, int]]:
        with self._lock:
            return {
                "requests": dict(self._requests.get(owner, {})),
                "operations_created": dict(self._created.get(owner, {})),
                "idempotent_replays": dict(self._replays.get(owner, {})),
            }
