"""HTTP: one pooled httpx client per wrapper client, the retry loop (sync and async twins that
differ only in I/O; the decisions come from :class:`RetryState`), and error bodies."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
import orjson

from ._errors import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    TogetherRLError,
    status_error_class,
)
from ._policy import RetryPolicy, RetryState

DEFAULT_BASE_URL = "https://api.together.ai"
USER_AGENT = "together-rl/0.1.0"


def resolve_config(api_key: str | None, base_url: str | None) -> tuple[str, str]:
    """API key and API root (``.../v1``) from the arguments or the environment."""
    key = api_key if api_key is not None else os.environ.get("TOGETHER_API_KEY")
    if not key:
        raise TogetherRLError("no API key: pass api_key= or set TOGETHER_API_KEY")
    root = base_url or os.environ.get("TOGETHER_BASE_URL") or DEFAULT_BASE_URL
    root = root.rstrip("/")
    if root.endswith("/v1"):  # tolerated, although TOGETHER_BASE_URL is documented without it
        root = root[: -len("/v1")]
    return key, root + "/v1"


def default_headers(api_key: str) -> dict[str, str]:
    return {
        "Authorization": f"Bearer {api_key}",
        "Accept": "application/json",
        "User-Agent": USER_AGENT,
    }


def make_timeout(policy: RetryPolicy) -> httpx.Timeout:
    return httpx.Timeout(policy.request_timeout, connect=policy.connect_timeout)


@dataclass(frozen=True)
class RequestSpec:
    """One HTTP request, as built by a generated ``_get_kwargs`` (body encoded by us)."""

    method: str
    url: str
    operation: str
    params: Mapping[str, Any] | None = None
    headers: Mapping[str, str] | None = None
    content: bytes | None = None
    #: False for presigned payload URLs: the request goes out without ``Authorization``
    authenticated: bool = True

    @classmethod
    def from_kwargs(
        cls, kwargs: Mapping[str, Any], *, operation: str, content: bytes | None = None
    ) -> RequestSpec:
        """From a generated ``_get_kwargs(...)`` result; its ``json=`` body is replaced by
        ``content`` (orjson-encoded by the caller)."""
        headers = dict(kwargs.get("headers") or {})
        if content is not None:
            headers["Content-Type"] = "application/json"
        params = kwargs.get("params") or None
        if params:
            # Arrays go comma-separated, as the spec (style form, explode false) says.
            params = {
                k: ",".join(map(str, v)) if isinstance(v, list) else v for k, v in params.items()
            }
        return cls(
            method=str(kwargs["method"]).upper(),
            url=str(kwargs["url"]),
            operation=operation,
            params=params,
            headers=headers,
            content=content,
        )


def status_error(response: httpx.Response, operation: str) -> APIStatusError:
    """A typed exception for a non-2xx response, whatever its body (JSON, HTML, empty)."""
    status = response.status_code
    body: Any = None
    message = ""
    param = type_ = code = None
    content = response.content
    if content:
        try:
            body = orjson.loads(content)
        except orjson.JSONDecodeError:
            body = response.text
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        error = body["error"]
        message = str(error.get("message") or "")
        param, type_, code = error.get("param"), error.get("type"), error.get("code")
    elif isinstance(body, dict) and "message" in body:  # gRPC-gateway envelope
        message = str(body["message"])
        code = str(body["code"]) if body.get("code") is not None else None
    elif isinstance(body, str) and body.strip():
        message = " ".join(body.split())[:200]
    if not message:
        message = httpx.codes.get_reason_phrase(status) or "unknown status"
    return status_error_class(status)(
        status,
        operation=operation,
        message=message,
        param=param,
        type=type_,
        code=code,
        body=body,
        headers=dict(response.headers),
    )


def _transport_error(exc: httpx.TransportError, operation: str, attempts: int) -> Exception:
    text = f"{operation}: {type(exc).__name__}: {exc} (after {attempts} attempt(s))"
    if isinstance(exc, httpx.TimeoutException):
        return APITimeoutError(text, operation=operation)
    return APIConnectionError(text, operation=operation)


def _client_options(api_key: str, root: str, policy: RetryPolicy) -> dict[str, Any]:
    """The options of the pooled httpx client, sync or async."""
    return {
        "base_url": root,
        "headers": default_headers(api_key),
        "timeout": make_timeout(policy),
        "limits": httpx.Limits(max_connections=64, max_keepalive_connections=32),
    }


def _build(
    client: httpx.Client | httpx.AsyncClient, spec: RequestSpec, state: RetryState
) -> httpx.Request:
    request = client.build_request(
        spec.method,
        spec.url,
        params=spec.params,
        headers=spec.headers,
        content=spec.content,
        timeout=httpx.Timeout(state.attempt_timeout(), connect=state.policy.connect_timeout),
    )
    if not spec.authenticated:
        del request.headers["Authorization"]
    return request


def _delay_after_status(state: RetryState, response: httpx.Response, operation: str) -> float:
    """The wait before retrying a non-2xx answer; raises the typed error when the status is
    not retried or the retries are spent."""
    delay = state.after_status(response.status_code, response.headers)
    if delay is None:
        raise status_error(response, operation)
    return delay


def _delay_after_transport_error(
    state: RetryState, exc: httpx.TransportError, operation: str
) -> float:
    """The wait before the next attempt; raises the typed error when the retries are spent."""
    delay = state.after_transport_error()
    if delay is None:
        raise _transport_error(exc, operation, state.retries + 1) from exc
    return delay


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
        self.client = httpx.Client(transport=transport, **_client_options(api_key, root, policy))

    def send(self, spec: RequestSpec) -> httpx.Response:
        state = RetryState(self.policy, clock=self.clock)
        while True:
            try:
                response = self.client.send(_build(self.client, spec, state))
            except httpx.TransportError as exc:
                delay = _delay_after_transport_error(state, exc, spec.operation)
            else:
                if response.is_success:
                    return response
                delay = _delay_after_status(state, response, spec.operation)
            self.sleep(delay)

    def close(self) -> None:
        self.client.close()


class AsyncHTTP:
    """The async twin of :class:`SyncHTTP`."""

    def __init__(
        self,
        *,
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
            transport=transport, **_client_options(api_key, root, policy)
        )

    async def send(self, spec: RequestSpec) -> httpx.Response:
        state = RetryState(self.policy, clock=self.clock)
        while True:
            try:
                response = await self.client.send(_build(self.client, spec, state))
            except httpx.TransportError as exc:
                delay = _delay_after_transport_error(state, exc, spec.operation)
            else:
                if response.is_success:
                    return response
                delay = _delay_after_status(state, response, spec.operation)
            await self.sleep(delay)

    async def close(self) -> None:
        await self.client.aclose()


def parse_json(response: httpx.Response, operation: str) -> Any:
    """orjson-parse a 2xx body; a 2xx that is not JSON is an error."""
    try:
        return orjson.loads(response.content)
    except orjson.JSONDecodeError as exc:
        raise APIStatusError(
            response.status_code,
            operation=operation,
            message=f"expected a JSON body, got {response.headers.get('content-type', 'none')}",
            body=response.text[:200],
        ) from exc
