"""The asynchronous client over :class:`AsyncClientCore`; re-exports the resource APIs' names."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import httpx
from together_rl_client import models
from together_rl_client.api import rl

from . import _fields, _http
from ._async_http import AsyncClientCore, AsyncHTTP
from ._async_resources import (
    AsyncCheckpointsAPI,
    AsyncModelResources,
    AsyncModelResourcesAPI,
    AsyncRolloutsAPI,
)
from ._async_sessions import AsyncOperationFuture, AsyncSession, AsyncSessionsAPI
from ._http import RetryPolicy
from ._poll_plan import PollPolicy

__all__ = [
    "AsyncCheckpointsAPI",
    "AsyncClient",
    "AsyncModelResources",
    "AsyncModelResourcesAPI",
    "AsyncOperationFuture",
    "AsyncRolloutsAPI",
    "AsyncSession",
    "AsyncSessionsAPI",
]


class AsyncClient(AsyncClientCore):
    """Asynchronous client of the RL training API. ``api_key`` defaults to ``TOGETHER_API_KEY``,
    ``base_url`` to ``TOGETHER_BASE_URL`` or ``https://api.together.ai`` (without ``/v1``); ``async
    with`` it or :meth:`close` it. ``transport``, ``sleep``, ``clock``: for tests. Operation
    bodies above ``upload_threshold`` bytes (0.5 MiB, as the SDK) are uploaded (``None``: never)."""

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        retry_policy: RetryPolicy | None = None,
        poll_policy: PollPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
        upload_threshold: int | None = _fields.UPLOAD_THRESHOLD_BYTES,
    ) -> None:
        key, root = _http.resolve_config(api_key, base_url)
        self.base_url = root
        self.retry_policy = retry_policy or RetryPolicy()
        http = AsyncHTTP(key, root, self.retry_policy, transport, sleep, clock)
        super().__init__(http, poll_policy or PollPolicy(), upload_threshold)
        self.sessions = AsyncSessionsAPI(self)
        self.model_resources = AsyncModelResourcesAPI(self)
        self.checkpoints = AsyncCheckpointsAPI(self)
        self.rollouts = AsyncRolloutsAPI(self)

    def session(self, session_id: str) -> AsyncSession:
        """A handle on an existing session (no request is sent)."""
        return AsyncSession(self, session_id)

    async def supported_models(self) -> models.SupportedModels:
        """The base models the API can train, with their limits."""
        return await self._call(rl.get_supported_models.ENDPOINT, None)

    async def close(self) -> None:
        """Close the pooled connections."""
        await self._http.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
