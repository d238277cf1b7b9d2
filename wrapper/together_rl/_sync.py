# Derived from _async.py by scripts/unasync.py (make derive): edit the source, not this.
"""The synchronous client over :class:`ClientCore`; re-exports the resource APIs' names."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx
from together_rl_client import models
from together_rl_client.api import rl

from . import _fields, _http
from ._http import RetryPolicy
from ._poll_plan import PollPolicy
from ._sync_http import ClientCore, SyncHTTP
from ._sync_resources import (
    CheckpointsAPI,
    ModelResources,
    ModelResourcesAPI,
    RolloutsAPI,
)
from ._sync_sessions import OperationFuture, Session, SessionsAPI

__all__ = [
    "CheckpointsAPI",
    "Client",
    "ModelResources",
    "ModelResourcesAPI",
    "OperationFuture",
    "RolloutsAPI",
    "Session",
    "SessionsAPI",
]


class Client(ClientCore):
    """Synchronous client of the RL training API. ``api_key`` defaults to ``TOGETHER_API_KEY``,
    ``base_url`` to ``TOGETHER_BASE_URL`` or ``https://api.together.ai`` (without ``/v1``); ``sync
    with`` it or :meth:`close` it. ``transport``, ``sleep``, ``clock``: for tests. Operation
    bodies above ``upload_threshold`` bytes (0.5 MiB, as the SDK) are uploaded (``None``: never)."""

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        retry_policy: RetryPolicy | None = None,
        poll_policy: PollPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        upload_threshold: int | None = _fields.UPLOAD_THRESHOLD_BYTES,
    ) -> None:
        key, root = _http.resolve_config(api_key, base_url)
        self.base_url = root
        self.retry_policy = retry_policy or RetryPolicy()
        http = SyncHTTP(key, root, self.retry_policy, transport, sleep, clock)
        super().__init__(http, poll_policy or PollPolicy(), upload_threshold)
        self.sessions = SessionsAPI(self)
        self.model_resources = ModelResourcesAPI(self)
        self.checkpoints = CheckpointsAPI(self)
        self.rollouts = RolloutsAPI(self)

    def session(self, session_id: str) -> Session:
        """A handle on an existing session (no request is sent)."""
        return Session(self, session_id)

    def supported_models(self) -> models.SupportedModels:
        """The base models the API can train, with their limits."""
        return self._call(rl.get_supported_models.ENDPOINT, None)

    def close(self) -> None:
        """Close the pooled connections."""
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
