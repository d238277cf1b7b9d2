# Derived from _async.py by scripts/unasync.py (make derive): edit the source, not this.
"""The synchronous client: every request goes through one call over the generated endpoints
(:meth:`Client._call`); the resource APIs' public names are exported here too."""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable, Mapping
from typing import Any, ParamSpec, TypeVar

import httpx
from together_rl_client import models
from together_rl_client.api import rl
from together_rl_client.models import ModelResources as ModelResourcesInfo
from together_rl_client.models import Session as SessionInfo
from together_rl_client.types import Endpoint

from . import _bodies, _fields, _http, _payloads, _results
from ._errors import APIStatusError, NotReadyError
from ._http import RequestSpec, RetryPolicy
from ._poll_plan import PollPolicy, readiness_wait
from ._polling import PollPlanner
from ._sync_http import SyncHTTP
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

P = ParamSpec("P")
M = TypeVar("M")
InfoT = TypeVar("InfoT", SessionInfo, ModelResourcesInfo)


class Client:
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
        self.poll_policy = poll_policy or PollPolicy()
        self.upload_threshold = upload_threshold
        self._uploads_supported = True
        self._http = SyncHTTP(key, root, self.retry_policy, transport, sleep, clock)
        # A session's planner lives as long as a handle on the session (or a future of it).
        self._planners = weakref.WeakValueDictionary[str, PollPlanner]()
        self._planners_lock = threading.Lock()
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

    # internals, shared by the resource APIs
    def _call(
        self,
        endpoint: Endpoint[P, M],
        body: Mapping[str, Any] | bytes | None,
        /,
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> M:
        """The one way to call an endpoint (``body``: the fields of its request model, or the
        encoded body)."""
        spec = _http.endpoint_request(endpoint, body, *args, **kwargs)
        return _results.read_body(endpoint, self._json(spec), spec.operation)

    def _page(self, endpoint: Endpoint[..., M], **query: Any) -> M:
        """One page of a list endpoint (``query``: its parameters; ``None`` leaves one out)."""
        return self._call(endpoint, None, **query)

    def _json(self, spec: RequestSpec) -> Any:
        return _http.parse_json(self._http.send(spec), spec.operation)

    def _planner(self, session_id: str) -> PollPlanner:
        with self._planners_lock:
            return self._planners.setdefault(session_id, PollPlanner(self.poll_policy))

    def _operation_content(self, session_id: str, body: dict[str, Any]) -> bytes:
        """An operation's encoded body or, above the upload threshold, the stand-in of the body
        uploaded for ``session_id`` (inline from then on when the server has no upload protocol)."""
        content = _bodies.encode_body(body)
        if not self._uploads_supported or not _payloads.needs_upload(
            len(content), self.upload_threshold
        ):
            return content
        try:
            upload = self._call(rl.create_payload_upload_url.ENDPOINT, b"", session_id)
        except APIStatusError as exc:
            if exc.status_code not in (404, 405):  # 404, 405: the server has no upload protocol
                raise
            self._uploads_supported = False
            return content
        self._http.send(_payloads.upload_request(upload.upload_url, content))
        return _bodies.encode_body(_payloads.shrink_body(body, upload.payload_id))

    def _wait_ready(self, info: InfoT, get: Endpoint[..., InfoT], timeout: float | None) -> InfoT:
        """Poll ``info``'s session or model resources (``get``) until ready."""
        what = f"{'session' if isinstance(info, SessionInfo) else 'model resources'} {info.id}"
        attempt = 0
        deadline = None if timeout is None else self._http.clock() + timeout
        while not _results.readiness(info):
            if deadline is not None and self._http.clock() >= deadline:
                raise NotReadyError(f"{what} not ready after {timeout} s")
            self._http.sleep(readiness_wait(attempt))
            attempt += 1
            info = self._call(get, None, info.id)
        return info
