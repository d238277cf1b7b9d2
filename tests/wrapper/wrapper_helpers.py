"""Helpers of the wrapper tests: one `Api` facade over Client and AsyncClient, so every
scenario runs against both (async mirrors sync), in-process and over loopback; the emulator
those scenarios run against; and mock transports."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from emulator_harness import EMULATOR_KEY as KEY
from starlette.testclient import TestClient
from together_rl import AsyncClient, Client, PollPolicy, RetryPolicy
from together_rl_emulator import AsyncInProcessTransport, InProcessTransport, create_app

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
    """An Api over `base_url`; with `app`, in-process (the emulator package's transports, which
    can drop a connection as `drop_after_commit` asks) instead of loopback."""
    kwargs: dict[str, Any] = {"retry_policy": retry, "poll_policy": poll}
    if mode == "sync":
        if app is not None and sync_transport is None:
            sync_transport = InProcessTransport(app)
        if sleep is not None:
            kwargs["sleep"] = sleep.sync
        return Api(mode, Client(api_key, base_url, transport=sync_transport, **kwargs), None)
    loop = asyncio.new_event_loop()
    if app is not None and async_transport is None:
        async_transport = AsyncInProcessTransport(app)
    if sleep is not None:
        kwargs["sleep"] = sleep.asyn
    return Api(mode, AsyncClient(api_key, base_url, transport=async_transport, **kwargs), loop)


def mocked(handler: Callable[[httpx.Request], httpx.Response], base_url: str) -> dict[str, Any]:
    """`make_api` keywords that send both clients' requests to `handler` (an
    httpx.MockTransport) and record their sleeps."""
    transport = httpx.MockTransport(handler)
    return {
        "base_url": base_url,
        "sleep": Recorder(),
        "sync_transport": transport,
        "async_transport": transport,
    }


class Emulator:
    """One emulator, reached in-process or over loopback, with its control endpoints."""

    def __init__(self, where: str, live_factory: Callable[..., Any], **options: Any) -> None:
        self.where = where
        if where == "inproc":
            self.app = create_app(api_keys=[KEY], **options)
            self.base_url = "http://emulator.test"
            self._control = TestClient(self.app, base_url=self.base_url)
            self._live = None
        else:
            self._live = live_factory(api_keys=[KEY], **options)
            self.app = None
            self.base_url = self._live.base_url
            self._control = httpx.Client(base_url=self.base_url)
        self._control.headers["Authorization"] = f"Bearer {KEY}"

    def fault(self, kind: str, **fields: Any) -> None:
        response = self._control.post("/_emulator/faults", json={"kind": kind, **fields})
        assert response.status_code == 200, response.text

    def stats(self) -> dict[str, Any]:
        response = self._control.get("/_emulator/stats")
        assert response.status_code == 200
        data: dict[str, Any] = response.json()
        return data

    def close(self) -> None:
        self._control.close()
        if self.app is not None:
            self.app.emulator.close()


def connect(api_factory: Callable[..., Api], mode: str, emulator: Emulator, **kw: Any) -> Api:
    return api_factory(mode, base_url=emulator.base_url, app=emulator.app, **kw)


def start_session(api: Api) -> Any:
    # Full-weight resources (lora_enabled defaults to true): the checkpoint tests read a model.
    resources = api.call(api.client.model_resources.create, "emulator/tiny-1k", lora_enabled=False)
    return api.call(api.client.sessions.create, model_resources_id=resources.id)
