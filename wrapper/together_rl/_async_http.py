"""The async HTTP client: one pooled ``httpx.AsyncClient`` per wrapper client, the retry loop
(:class:`RetryState` decides whether and when to retry), and the calls the resource APIs make
through it (:class:`AsyncClientCore`)."""

from __future__ import annotations

import asyncio
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import httpx
from together_rl_client.api import rl
from together_rl_client.models import ModelResources as ModelResourcesInfo
from together_rl_client.models import Session as SessionInfo
from together_rl_client.types import Endpoint

from . import _bodies, _http, _payloads, _results
from ._errors import APIStatusError, NotReadyError
from ._http import RequestSpec, RetryPolicy, RetryState
from ._poll_plan import PollPolicy, readiness_wait
from ._polling import PollPlanner

__all__ = ["AsyncClientCore", "AsyncHTTP"]

P = ParamSpec("P")
M = TypeVar("M")
InfoT = TypeVar("InfoT", SessionInfo, ModelResourcesInfo)


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


class AsyncClientCore:
    """What the resource APIs and handles call on the client: every request through one call over
    the generated endpoints (:meth:`_call`), a session's polling planner, an operation's body
    (uploaded above the threshold) and the wait for readiness."""

    def __init__(self, http: AsyncHTTP, poll_policy: PollPolicy, upload_threshold: int | None):
        self.poll_policy = poll_policy
        self.upload_threshold = upload_threshold
        self._uploads_supported = True
        self._http = http
        # A session's planner lives as long as a handle on the session (or a future of it).
        self._planners = weakref.WeakValueDictionary[str, PollPlanner]()
        self._planners_lock = threading.Lock()

    async def _call(
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
        return _results.read_body(endpoint, await self._json(spec), spec.operation)

    async def _page(self, endpoint: Endpoint[..., M], **query: Any) -> M:
        """One page of a list endpoint (``query``: its parameters; ``None`` leaves one out)."""
        return await self._call(endpoint, None, **query)

    async def _json(self, spec: RequestSpec) -> Any:
        return _http.parse_json(await self._http.send(spec), spec.operation)

    def _planner(self, session_id: str) -> PollPlanner:
        with self._planners_lock:
            return self._planners.setdefault(session_id, PollPlanner(self.poll_policy))

    async def _operation_content(self, session_id: str, body: dict[str, Any]) -> bytes:
        """An operation's encoded body or, above the upload threshold, the stand-in of the body
        uploaded for ``session_id`` (inline from then on when the server has no upload protocol)."""
        content = _bodies.encode_body(body)
        if not self._uploads_supported or not _payloads.needs_upload(
            len(content), self.upload_threshold
        ):
            return content
        try:
            upload = await self._call(rl.create_payload_upload_url.ENDPOINT, b"", session_id)
        except APIStatusError as exc:
            if exc.status_code not in (404, 405):  # 404, 405: the server has no upload protocol
                raise
            self._uploads_supported = False
            return content
        await self._http.send(_payloads.upload_request(upload.upload_url, content))
        return _bodies.encode_body(_payloads.shrink_body(body, upload.payload_id))

    async def _wait_ready(
        self, info: InfoT, get: Endpoint[..., InfoT], timeout: float | None
    ) -> InfoT:
        """Poll ``info``'s session or model resources (``get``) until ready."""
        what = f"{'session' if isinstance(info, SessionInfo) else 'model resources'} {info.id}"
        attempt = 0
        deadline = None if timeout is None else self._http.clock() + timeout
        while not _results.readiness(info):
            if deadline is not None and self._http.clock() >= deadline:
                raise NotReadyError(f"{what} not ready after {timeout} s")
            await self._http.sleep(readiness_wait(attempt))
            attempt += 1
            info = await self._call(get, None, info.id)
        return info
