# Derived from _async_http.py by scripts/unasync.py (make derive): edit the source, not this.
"""The sync HTTP client: one pooled ``httpx.Client`` per wrapper client, and the retry
loop (the decisions come from :class:`RetryState` through :mod:`._http`; only the I/O is here)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import httpx

from ._http import (
    build_request,
    client_options,
    delay_after_status,
    delay_after_transport_error,
)
from ._requests import RequestSpec
from ._retry import RetryPolicy, RetryState

__all__ = ["SyncHTTP"]


class SyncHTTP:
    """Sends requests with retries on a pooled ``httpx.Client``."""

    def __init__(
        self,
        *,
        api_key: str,
        root: str,
        policy: RetryPolicy,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.policy = policy
        self.sleep = sleep
        self.clock = clock
        self.client = httpx.Client(transport=transport, **client_options(api_key, root, policy))

    def send(self, spec: RequestSpec) -> httpx.Response:
        state = RetryState(self.policy, clock=self.clock)
        while True:
            try:
                response = self.client.send(build_request(self.client, spec, state))
            except httpx.TransportError as exc:
                delay = delay_after_transport_error(state, exc, spec.operation)
            else:
                if response.is_success:
                    return response
                delay = delay_after_status(state, response, spec.operation)
            self.sleep(delay)

    def download(
        self,
        spec: RequestSpec,
        path: Path,
        progress: Callable[[int, int | None], None] | None = None,
    ) -> int:
        """GET ``spec`` streamed into ``path`` (written again from the start on a retry);
        ``progress(bytes so far, total or None)`` after each chunk. Returns the size."""
        state = RetryState(self.policy, clock=self.clock)
        while True:
            try:
                response = self.client.send(build_request(self.client, spec, state), stream=True)
                try:
                    if response.is_success:
                        return _stream_to(response, path, progress)
                    response.read()
                    delay = delay_after_status(state, response, spec.operation)
                finally:
                    response.close()
            except httpx.TransportError as exc:
                delay = delay_after_transport_error(state, exc, spec.operation)
            self.sleep(delay)

    def close(self) -> None:
        self.client.close()


def _stream_to(
    response: httpx.Response, path: Path, progress: Callable[[int, int | None], None] | None
) -> int:
    declared = response.headers.get("content-length")
    total = int(declared) if declared and declared.isdigit() else None
    written = 0
    with path.open("wb") as file:
        for chunk in response.iter_bytes():
            file.write(chunk)
            written += len(chunk)
            if progress is not None:
                progress(written, total)
    return written
