"""The async HTTP client: one pooled ``httpx.AsyncClient`` per wrapper client, and the retry
loop (the decisions come from :class:`RetryState` through :mod:`._http`; only the I/O is here)."""

# unasync: async only
# scripts/unasync.py derives _sync_http.py from this file (make derive): edit here, not there.
# unasync: end

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx

from . import _http
from ._http import RequestSpec
from ._retry import RetryPolicy, RetryState

__all__ = ["AsyncHTTP"]


class AsyncHTTP:
    """Sends requests with retries on a pooled ``httpx.AsyncClient``."""

    def __init__(
        self,
        api_key: str,
        root: str,
        policy: RetryPolicy,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.policy = policy
        self.sleep = sleep
        self.clock = clock
        self.client = httpx.AsyncClient(
            transport=transport, **_http.client_options(api_key, root, policy)
        )

    async def send(self, spec: RequestSpec) -> httpx.Response:
        """Send ``spec`` with retries; the 2xx response, its body read."""
        return await self._retrying(spec, None)

    async def download(
        self,
        spec: RequestSpec,
        path: Path,
        progress: Callable[[int, int | None], None] | None = None,
    ) -> httpx.Response:
        """GET ``spec`` streamed into ``path`` (written again from the start on a retry);
        ``progress(bytes so far, total or None)`` after each chunk."""
        return await self._retrying(spec, lambda response: _stream_to(response, path, progress))

    async def _retrying(
        self, spec: RequestSpec, sink: Callable[[httpx.Response], Awaitable[None]] | None
    ) -> httpx.Response:
        """The one retry loop: a 2xx body goes to ``sink`` as it streams (or is read whole),
        a non-2xx or a transport error is retried as :class:`RetryState` decides."""
        state = RetryState(self.policy, clock=self.clock)
        while True:
            try:
                request = _http.build_request(self.client, spec, state)
                response = await self.client.send(request, stream=True)
                try:
                    if response.is_success and sink is not None:
                        await sink(response)
                    else:
                        await response.aread()
                finally:
                    await response.aclose()
                if response.is_success:
                    return response
                delay = _http.delay_after_status(state, response, spec.operation)
            except httpx.TransportError as exc:
                delay = _http.delay_after_transport_error(state, exc, spec.operation)
            await self.sleep(delay)

    async def close(self) -> None:
        await self.client.aclose()


async def _stream_to(
    response: httpx.Response, path: Path, progress: Callable[[int, int | None], None] | None
) -> None:
    declared = response.headers.get("content-length")
    total = int(declared) if declared and declared.isdigit() else None
    written = 0
    with path.open("wb") as file:
        async for chunk in response.aiter_bytes():
            file.write(chunk)
            written += len(chunk)
            if progress is not None:
                progress(written, total)
