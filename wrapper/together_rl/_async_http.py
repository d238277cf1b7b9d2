"""The async HTTP client: one pooled ``httpx.AsyncClient`` per wrapper client, and the retry loop
(:class:`RetryState` decides whether and when to retry)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx

from . import _http
from ._http import RequestSpec, RetryPolicy, RetryState

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
            transport=transport,
            base_url=root,
            headers={
                "Authorization": f"Bearer {api_key}",
                "Accept": "application/json",
                "User-Agent": _http.USER_AGENT,
            },
            timeout=httpx.Timeout(policy.request_timeout, connect=policy.connect_timeout),
            limits=httpx.Limits(max_connections=64, max_keepalive_connections=32),
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
            # each attempt's read timeout is bounded by the call's deadline
            timeout = httpx.Timeout(state.attempt_timeout(), connect=self.policy.connect_timeout)
            request = self.client.build_request(
                spec.method,
                spec.url,
                params=spec.params,
                headers=spec.headers,
                content=spec.content,
                timeout=timeout,
            )
            if not spec.authenticated:
                del request.headers["Authorization"]
            try:
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
                delay = state.after_status(response.status_code, response.headers)
                if delay is None:  # not retried, or the retries are spent
                    raise _http.status_error(response, spec.operation)
            except httpx.TransportError as exc:
                delay = state.after_transport_error()
                if delay is None:
                    raise _http.transport_error(exc, spec.operation, state.retries + 1) from exc
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
