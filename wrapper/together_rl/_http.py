"""HTTP without I/O, for both clients: every request built from an ``ENDPOINT``; configuration; the
retry policy (what to retry, how long to wait); the typed errors of a failed call; 2xx JSON."""

from __future__ import annotations

import contextlib
import email.utils
import importlib.metadata
import math
import os
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ParamSpec

import httpx
import orjson
from together_rl_client.types import Endpoint

from . import _errors
from ._schema import invalid, known_keys, schema_of

__all__ = [
    "USER_AGENT",
    "VERSION",
    "RequestSpec",
    "RetryPolicy",
    "RetryState",
    "backoff_delay",
    "endpoint_request",
    "parse_json",
    "parse_retry_after",
    "resolve_config",
    "should_retry_status",
    "status_error",
    "transport_error",
]

P = ParamSpec("P")
#: the path of the API root under the base URL (the spec's server URL ends with it)
API_PREFIX = "/v1"


@dataclass(frozen=True)
class RequestSpec:
    """One HTTP request; ``operation`` labels it in errors (``"POST /v1/rl/training-sessions"``)."""

    method: str
    url: str
    operation: str
    params: Mapping[str, Any] | None = None
    headers: Mapping[str, str] | None = None
    content: bytes | None = None
    #: False for presigned payload URLs: the request goes out without ``Authorization``
    authenticated: bool = True


def set_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """The values that are not ``None``, generated models as their wire dicts."""
    return {
        key: value.to_dict() if hasattr(value, "to_dict") else value
        for key, value in values.items()
        if value is not None
    }


def endpoint_request(
    endpoint: Endpoint[P, Any],
    body: Mapping[str, Any] | bytes | None,
    /,
    *args: P.args,
    **kwargs: P.kwargs,
) -> RequestSpec:
    """The request of ``endpoint`` (``body``: its model's fields, or encoded)."""
    for name, value in zip(endpoint.path_params, args, strict=False):
        if not value:
            raise invalid(name, "must not be empty")
    parts = endpoint.request_parts(*args, **set_values(kwargs))
    if isinstance(body, Mapping):
        model: Any = endpoint.body_model
        assert model is not None, f"{endpoint.path} takes no request body"
        known_keys("", body, schema_of(model)["properties"], model.__name__)
        try:  # the generated request model checks the caller's values before anything is sent
            body = orjson.dumps(model.from_dict(set_values(body)).to_dict())
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise _errors.InvalidRequestError(
                f"the options do not fit {model.__name__}: {exc!r}"
            ) from exc
    headers, query = parts.headers, parts.params
    if body is not None:  # a body we send is JSON, an empty one too (as the official SDK)
        headers = {"Content-Type": "application/json", **headers}
    # arrays go comma-separated, as the spec (style form, explode false) says
    params = {k: ",".join(map(str, v)) if isinstance(v, list) else v for k, v in query.items()}
    operation = f"{parts.method} {API_PREFIX}{endpoint.path}"
    return RequestSpec(parts.method, parts.url, operation, params or None, headers, body)


DEFAULT_BASE_URL = "https://api.together.ai"
#: the installed distribution's version (``together_rl.__version__``)
VERSION = importlib.metadata.version("together-rl-toolkit")
USER_AGENT = f"together-rl/{VERSION}"


def resolve_config(api_key: str | None, base_url: str | None) -> tuple[str, str]:
    """API key and API root (``.../v1``) from the arguments or the environment."""
    key = api_key if api_key is not None else os.environ.get("TOGETHER_API_KEY")
    if not key:
        raise _errors.TogetherRLError("no API key: pass api_key= or set TOGETHER_API_KEY")
    root = (base_url or os.environ.get("TOGETHER_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
    # a root ending in /v1 is tolerated, although TOGETHER_BASE_URL is documented without it
    return key, root.removesuffix(API_PREFIX) + API_PREFIX


def status_error(response: httpx.Response, operation: str) -> _errors.APIStatusError:
    """A typed exception for a non-2xx response, whatever its body (JSON, HTML, empty)."""
    status, body = response.status_code, None
    if response.content:
        try:
            body = orjson.loads(response.content)
        except orjson.JSONDecodeError:
            body = response.text
    error: Any = {}
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        error = body["error"]
    elif isinstance(body, dict) and "message" in body:  # gRPC-gateway envelope
        code = body.get("code")
        error = {"message": body["message"], "code": None if code is None else str(code)}
    elif isinstance(body, str) and body.strip():
        error = {"message": " ".join(body.split())[:200]}
    message = str(error.get("message") or "")
    default = _errors.InternalServerError if status >= 500 else _errors.APIStatusError
    return _errors.STATUS_ERRORS.get(status, default)(
        status,
        operation=operation,
        message=message or httpx.codes.get_reason_phrase(status) or "unknown status",
        param=error.get("param"),
        type=error.get("type"),
        code=error.get("code"),
        body=body,
        headers=dict(response.headers),
    )


def transport_error(exc: httpx.TransportError, operation: str, attempts: int) -> Exception:
    """The typed error of a transport error that is not retried again."""
    text = f"{operation}: {type(exc).__name__}: {exc} (after {attempts} attempt(s))"
    if isinstance(exc, httpx.TimeoutException):
        return _errors.APITimeoutError(text, operation=operation)
    return _errors.APIConnectionError(text, operation=operation)


def parse_json(response: httpx.Response, operation: str) -> Any:
    """orjson-parse a 2xx body; a 2xx that is not JSON is a :class:`MalformedResponseError`."""
    try:
        return orjson.loads(response.content)
    except orjson.JSONDecodeError as exc:
        raise _errors.MalformedResponseError(
            f"HTTP {response.status_code} with a body that is not JSON "
            f"(content-type {response.headers.get('content-type', 'none')})",
            operation=operation,
            body=response.text[:200],
        ) from exc


@dataclass(frozen=True)
class RetryPolicy:
    """What to retry and how long to wait. Retried: connection errors, timeouts, 408, 409, 429
    and statuses >= 500 (``x-should-retry: true|false`` overrides), after ``Retry-After``
    (``retry-after-ms``, seconds or an HTTP date) capped at ``max_retry_after``, else after
    ``min(initial_backoff * 2**n, max_backoff)`` less up to ``jitter`` of it; the first retry
    after a broken connection or a timeout, after ``reconnect_delay``. ``call_timeout``: a call."""

    max_retries: int = 8
    initial_backoff: float = 0.25
    max_backoff: float = 8.0
    jitter: float = 0.25
    reconnect_delay: float = 0.02
    max_retry_after: float = 60.0
    call_timeout: float | None = 600.0
    request_timeout: float = 120.0
    connect_timeout: float = 10.0


def should_retry_status(status_code: int, headers: Mapping[str, str]) -> bool:
    """Whether a response with this status (and these headers) is worth another attempt."""
    override = headers.get("x-should-retry", "").strip().lower()
    if override in ("true", "false"):
        return override == "true"
    return status_code in (408, 409, 429) or status_code >= 500


def parse_retry_after(
    headers: Mapping[str, str], *, wall_clock: Callable[[], float] = time.time
) -> float | None:
    """Seconds the server asks us to wait, or None when it does not say (or says nonsense)."""
    with contextlib.suppress(KeyError, ValueError):
        seconds = float(headers["retry-after-ms"]) / 1000.0
        if math.isfinite(seconds) and seconds >= 0:
            return seconds
    raw = headers.get("retry-after", "").strip()
    try:
        seconds = float(raw)
    except ValueError:
        try:
            return max(0.0, email.utils.parsedate_to_datetime(raw).timestamp() - wall_clock())
        except (TypeError, ValueError, IndexError):
            return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def backoff_delay(policy: RetryPolicy, retries_taken: int, rand: float) -> float:
    """Exponential backoff with jitter: ``rand`` in [0, 1) removes up to ``jitter`` of it."""
    base = min(policy.initial_backoff * (2.0**retries_taken), policy.max_backoff)
    return base * (1.0 - policy.jitter * rand)


class RetryState:
    """The retry bookkeeping of one logical call (one Idempotency-Key, many attempts)."""

    def __init__(
        self,
        policy: RetryPolicy,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        rand: Callable[[], float] = random.random,
    ) -> None:
        self.policy = policy
        self.retries = 0
        self._clock = clock
        self._wall_clock = wall_clock
        self._rand = rand
        self.deadline = None if policy.call_timeout is None else clock() + policy.call_timeout

    def attempt_timeout(self) -> float:
        """The next attempt's read timeout, bounded by the deadline."""
        if self.deadline is None:
            return self.policy.request_timeout
        return max(0.001, min(self.policy.request_timeout, self.deadline - self._clock()))

    def after_status(self, status_code: int, headers: Mapping[str, str]) -> float | None:
        """Seconds to wait before retrying a non-2xx answer, or None to give up and raise."""
        if not should_retry_status(status_code, headers):
            return None
        retry_after = parse_retry_after(headers, wall_clock=self._wall_clock)
        if retry_after is not None:
            retry_after = min(retry_after, self.policy.max_retry_after)
        return self._next_delay(retry_after)

    def after_transport_error(self) -> float | None:
        """Seconds to wait before retrying a connection error or timeout, or None to give up."""
        return self._next_delay(self.policy.reconnect_delay if self.retries == 0 else None)

    def _next_delay(self, retry_after: float | None) -> float | None:
        if self.retries >= self.policy.max_retries:
            return None
        delay = retry_after
        if delay is None:
            delay = backoff_delay(self.policy, self.retries, self._rand())
        if self.deadline is not None and self._clock() + delay >= self.deadline:
            return None
        self.retries += 1
        return delay
