"""Helpers of the wrapper tests: one `Api` facade over Client and AsyncClient, so every
scenario runs against both (async mirrors sync), in-process and over loopback."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from starlette.testclient import TestClient
from together_rl import AsyncClient, Client, PollPolicy, RetryPolicy

KEY = "test-key"
FAST_RETRY = RetryPolicy(initial_backoff=0.001, max_backoff=0.01, max_retry_after=60.0)


@dataclass
class Recorder:
    """A fake sleep: records every delay asked for, sleeps a tiny bit instead."""

    delays: list[float] = field(default_factory=list)

    def sync(self, seconds: float) -> None:
        self.delays.append(seconds)

    async def asyn(self, seconds: float) -> None:
        self.delays.append(seconds)
        await asyncio.sleep(0)


class Api:
    """Runs the same calls through the sync or the async client (sync-looking facade)."""

    def __init__(
        self, mode: str, client: Client | AsyncClient, loop: asyncio.AbstractEventLoop | None
    ) -> None:
        self.mode = mode
        self.client = client
        self._loop = loop

    def run(self, value: Any) -> Any:
        if self.mode == "async":
            assert self._loop is not None
            return self._loop.run_until_complete(value)
        return value

    def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return self.run(fn(*args, **kwargs))

    def result(self, future: Any, timeout: float | None = 30) -> Any:
        return self.run(future.result(timeout=timeout))

    def close(self) -> None:
        if self.mode == "async":
            assert self._loop is not None and isinstance(self.client, AsyncClient)
            self._loop.run_until_complete(self.client.close())
            self._loop.close()
        else:
            assert isinstance(self.client, Client)
            self.client.close()


def make_api(
    mode: str,
    *,
    base_url: str,
    app: Any = None,
    sleep: Recorder | None = None,
    retry: RetryPolicy = FAST_RETRY,
    poll: PollPolicy | None = None,
    sync_transport: httpx.BaseTransport | None = None,
    async_transport: httpx.AsyncBaseTransport | None = None,
    api_key: str = KEY,
) -> Api:
    """An Api over `base_url`; with `app`, in-process (ASGI transports) instead of loopback."""
    kwargs: dict[str, Any] = {"retry_policy": retry, "poll_policy": poll}
    if mode == "sync":
        if app is not None and sync_transport is None:
            sync_transport = TestClient(app)._transport
        if sleep is not None:
            kwargs["sleep"] = sleep.sync
        return Api(mode, Client(api_key, base_url, transport=sync_transport, **kwargs), None)
    loop = asyncio.new_event_loop()
    if app is not None and async_transport is None:
        async_transport = httpx.ASGITransport(app=app)
    if sleep is not None:
        kwargs["sleep"] = sleep.asyn
    return Api(mode, AsyncClient(api_key, base_url, transport=async_transport, **kwargs), loop)
