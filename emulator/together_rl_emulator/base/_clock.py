"""The emulator clock: wall-clock seconds plus an offset per API key that only tests move
(`POST /_emulator/clock`), so an hour of idleness takes no time to test.

Each key has its own offset: moving one key's clock expires only that key's model resources, and
no key sees another's time. A move is a finite number of seconds in `[0, MAX_ADVANCE_S]`, and a
key's clock stays within `MAX_OFFSET_S` of the wall clock (so every time it shows is a date an
RFC 3339 timestamp can state).
"""

from __future__ import annotations

import math
import threading
import time

from ._errors import invalid

__all__ = ["MAX_ADVANCE_S", "MAX_OFFSET_S", "EmulatorClock"]

MAX_ADVANCE_S = 366 * 86_400  # one move: at most a (leap) year
MAX_OFFSET_S = 100 * MAX_ADVANCE_S  # a key's clock: at most about a century ahead


class EmulatorClock:
    """Wall-clock seconds plus an offset per owner (API key), never moved backwards."""

    def __init__(self) -> None:
        self._offsets: dict[str, float] = {}
        self._lock = threading.Lock()

    def now(self, owner: str) -> float:
        return time.time() + self._offsets.get(owner, 0.0)

    def latest(self) -> float:
        """The latest time any owner's clock shows (expiry candidates are due by it)."""
        with self._lock:
            return time.time() + max(self._offsets.values(), default=0.0)

    def advance(self, owner: str, seconds: object) -> float:
        """Move `owner`'s clock `seconds` forward; 400 naming `advance_seconds` for anything but
        a finite number in `[0, MAX_ADVANCE_S]` that keeps the offset within `MAX_OFFSET_S`."""
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            raise invalid("advance_seconds", "must be a number of seconds")
        if not math.isfinite(seconds) or not 0 <= seconds <= MAX_ADVANCE_S:
            raise invalid(
                "advance_seconds",
                f"must be a finite number of seconds from 0 to {MAX_ADVANCE_S} (a year);"
                " the emulator clock never goes back",
            )
        with self._lock:
            offset = self._offsets.get(owner, 0.0) + float(seconds)
            if offset > MAX_OFFSET_S:
                raise invalid(
                    "advance_seconds",
                    f"would move this key's clock more than {MAX_OFFSET_S} seconds (a century)"
                    " ahead of the wall clock",
                )
            self._offsets[owner] = offset
        return self.now(owner)
