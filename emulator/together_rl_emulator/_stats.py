"""Test-only counters served at `GET /_emulator/stats`: requests per route, operations, replays."""

from __future__ import annotations

import threading
from collections import Counter


class Stats:
    """Thread-safe counters. Kept in memory only: a restart starts them again from zero."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: Counter[str] = Counter()
        self._created: Counter[str] = Counter()
        self._replays: Counter[str] = Counter()

    def count_request(self, route_key: str) -> None:
        """`route_key` is `"METHOD /v1/route/{template}"`."""
        with self._lock:
            self._requests[route_key] += 1

    def count_operation_created(self, kind: str) -> None:
        with self._lock:
            self._created[kind] += 1

    def count_replay(self, kind: str) -> None:
        with self._lock:
            self._replays[kind] += 1

    def snapshot(self) -> dict[str, dict[str, int]]:
        with self._lock:
            return {
                "requests": dict(self._requests),
                "operations_created": dict(self._created),
                "idempotent_replays": dict(self._replays),
            }
