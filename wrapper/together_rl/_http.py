"""HTTP without I/O: configuration, what the retry loops of :mod:`._async_http` and
:mod:`._sync_http` decide after each attempt (through :class:`RetryState`), typed errors from
error bodies, and the JSON of a 2xx body."""

from __future__ import annotations

import importlib.metadata
import os
from typing import Any

import httpx
import orjson

from ._errors import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    MalformedResponseError,
    TogetherRLError,
    status_error_class,
)
from ._requests import API_PREFIX, RequestSpec
from ._retry import RetryPolicy, RetryState

__all__ = [
    "DEFAULT_BASE_URL",
    "VERSION",
    "build_request",
    "client_options",
    "delay_after_status",
    "delay_after_transport_error",
    "parse_json",
    "resolve_config",
    "status_error",
]

DEFAULT_BASE_URL = "https://api.together.ai"
#: the installed distribution's version (``together_rl.__version__``)
VERSION = importlib.metadata.version("together-rl-toolkit")
USER_AGENT = f"together-rl/{VERSION}"


def resolve_config(api_key: str | None, base_url: str | None) -> tuple[str, str]:
    """API key and API root (``.../v1``) from the arguments or the environment."""
    key = api_key if api_key is not None else os.environ.get("TOGETHER_API_KEY")
    if not key:
        raise TogetherRLError("no API key: pass api_key= or set TOGETHER_API_KEY")
    root = base_url or os.environ.get("TOGETHER_BASE_URL") or DEFAULT_BASE_URL
    root = root.rstrip("/")
    if root.endswith(API_PREFIX):  # tolerated, although TOGETHER_BASE_URL is documented without it
        root = root[: -len(API_PREFIX)]
    return key, root + API_PREFIX


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


def client_options(api_key: str, root: str, policy: RetryPolicy) -> dict[str, Any]:
    """The options of the pooled httpx client, sync or async."""
    return {
        "base_url": root,
        "headers": {
            "Authorization": f"Bearer {api_key}",
            "Accept": "application/json",
            "User-Agent": USER_AGENT,
        },
        "timeout": httpx.Timeout(policy.request_timeout, connect=policy.connect_timeout),
        "limits": httpx.Limits(max_connections=64, max_keepalive_connections=32),
    }


def build_request(
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


def delay_after_status(state: RetryState, response: httpx.Response, operation: str) -> float:
    """The wait before retrying a non-2xx answer; raises the typed error when the status is
    not retried or the retries are spent."""
    delay = state.after_status(response.status_code, response.headers)
    if delay is None:
        raise status_error(response, operation)
    return delay


def delay_after_transport_error(
    state: RetryState, exc: httpx.TransportError, operation: str
) -> float:
    """The wait before the next attempt; raises the typed error when the retries are spent."""
    delay = state.after_transport_error()
    if delay is None:
        raise _transport_error(exc, operation, state.retries + 1) from exc
    return delay


def parse_json(response: httpx.Response, operation: str) -> Any:
    """orjson-parse a 2xx body; a 2xx that is not JSON is a :class:`MalformedResponseError`."""
    try:
        return orjson.loads(response.content)
    except orjson.JSONDecodeError as exc:
        raise MalformedResponseError(
            f"HTTP {response.status_code} with a body that is not JSON "
            f"(content-type {response.headers.get('content-type', 'none')})",
            operation=operation,
            body=response.text[:200],
        ) from exc
