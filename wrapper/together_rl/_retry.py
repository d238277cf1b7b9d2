"""The retry policy of both clients, without I/O: which answers are worth another attempt and
how long to wait before it (the HTTP layer asks, then sleeps itself)."""

from __future__ import annotations

import contextlib
import email.utils
import math
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

__all__ = [
    "RetryPolicy",
    "RetryState",
    "backoff_delay",
    "parse_retry_after",
    "should_retry_status",
]


@dataclass(frozen=True)
class RetryPolicy:
    """What to retry and how long to wait. Retried: connection errors, timeouts, 408, 409, 429
    and statuses >= 500; ``x-should-retry: true|false`` overrides. The delay: ``Retry-After``
    (``retry-after-ms``, seconds or an HTTP date) capped at ``max_retry_after``, else
    ``min(initial_backoff * 2**n, max_backoff)`` less up to ``jitter`` of it at random; the
    first retry after a connection error or timeout waits ``reconnect_delay`` (a broken
    connection says nothing of the server's load). ``call_timeout`` bounds a whole call."""

    max_retries: int = 8
    initial_backoff: float = 0.25
    max_backoff: float = 8.0
    jitter: float = 0.25
    reconnect_delay: float = 0.02
    max_retry_after: float = 60.0
    call_timeout: float | None = 600.0
    request_timeout: float = 120.0
    connect_timeout: float = 10.0


def should_retry_status(status_code: int, headers: Mapping[str, str]) -> bool:
    """Whether a response with this status (and these headers) is worth another attempt."""
    override = headers.get("x-should-retry", "").strip().lower()
    if override in ("true", "false"):
        return override == "true"
    return status_code in (408, 409, 429) or status_code >= 500


def parse_retry_after(
    headers: Mapping[str, str], *, wall_clock: Callable[[], float] = time.time
) -> float | None:
    """Seconds the server asks us to wait, or None when it does not say (or says nonsense)."""
    with contextlib.suppress(KeyError, ValueError):
        seconds = float(headers["retry-after-ms"]) / 1000.0
        if math.isfinite(seconds) and seconds >= 0:
            return seconds
    raw = headers.get("retry-after", "").strip()
    try:
        seconds = float(raw)
    except ValueError:
        try:
            return max(0.0, email.utils.parsedate_to_datetime(raw).timestamp() - wall_clock())
        except (TypeError, ValueError, IndexError):
            return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def backoff_delay(policy: RetryPolicy, retries_taken: int, rand: float) -> float:
    """Exponential backoff with jitter: ``rand`` in [0, 1) removes up to ``jitter`` of it."""
    base = min(policy.initial_backoff * (2.0**retries_taken), policy.max_backoff)
    return base * (1.0 - policy.jitter * rand)


class RetryState:
    """The retry bookkeeping of one logical call (one Idempotency-Key, many attempts)."""

    def __init__(
        self,
        policy: RetryPolicy,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        rand: Callable[[], float] = random.random,
    ) -> None:
        self.policy = policy
        self.retries = 0
        self._clock = clock
        self._wall_clock = wall_clock
        self._rand = rand
        self.deadline = None if policy.call_timeout is None else clock() + policy.call_timeout

    def attempt_timeout(self) -> float:
        """The next attempt's read timeout, bounded by the deadline."""
        if self.deadline is None:
            return self.policy.request_timeout
        return max(0.001, min(self.policy.request_timeout, self.deadline - self._clock()))

    def after_status(self, status_code: int, headers: Mapping[str, str]) -> float | None:
        """Seconds to wait before retrying a non-2xx answer, or None to give up and raise."""
        if not should_retry_status(status_code, headers):
            return None
        retry_after = parse_retry_after(headers, wall_clock=self._wall_clock)
        if retry_after is not None:
            retry_after = min(retry_after, self.policy.max_retry_after)
        return self._next_delay(retry_after)

    def after_transport_error(self) -> float | None:
        """Seconds to wait before retrying a connection error or timeout, or None to give up."""
        return self._next_delay(self.policy.reconnect_delay if self.retries == 0 else None)

    def _next_delay(self, retry_after: float | None) -> float | None:
        if self.retries >= self.policy.max_retries:
            return None
        delay = retry_after
        if delay is None:
            delay = backoff_delay(self.policy, self.retries, self._rand())
        if self.deadline is not None and self._clock() + delay >= self.deadline:
            return None
        self.retries += 1
        return delay
