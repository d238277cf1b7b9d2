"""Before any check runs: can the suite reach the target, is its key accepted, is it this API?

:func:`preflight` resolves and connects to the target and makes one read-only authenticated call
(the spec's ``getSupportedModels``). Whatever stops it becomes a :class:`TargetUnavailable` whose
message is one line naming the cause; the run then does not start and the reports say NOT RUN.

After a successful preflight, :class:`TargetWatch` tells one request that got no answer from a
target that went away: a check that got no answer is never a conformance failure.
"""

from __future__ import annotations

import json
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx

from together_rl_contract_tests._spec import operation_labels, operation_spec, resolve_ref
from together_rl_contract_tests._target import Target, mask_key, redact

__all__ = [
    "PREFLIGHT_OPERATION_ID",
    "TargetUnavailable",
    "TargetWatch",
    "is_transport_error",
    "preflight",
]

#: The read-only, authenticated operation the preflight calls.
PREFLIGHT_OPERATION_ID = "getSupportedModels"
PREFLIGHT_TIMEOUT_S = 10.0
#: A busy server (429/503) gets this many more tries, each after its Retry-After (capped).
BUSY_RETRIES = 2
MAX_BUSY_WAIT_S = 5.0
MAX_QUOTED_CHARS = 120


class TargetUnavailable(Exception):
    """The target cannot be checked; ``str(error)`` is the one-line cause."""


def preflight(target: Target, *, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> None:
    """Raise :class:`TargetUnavailable` unless the target answers the preflight call as this API."""
    if not target.api_key:
        raise TargetUnavailable("no API key: pass --api-key or set TOGETHER_API_KEY")
    parts = urlsplit(target.base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise TargetUnavailable(
            f"--base-url {target.base_url!r} is not an http(s) URL (expected e.g. https://host)"
        )
    path = _preflight_path()
    url = target.api_url + path
    headers = {"Authorization": f"Bearer {target.api_key}", "Accept": "application/json"}
    try:
        with httpx.Client(timeout=httpx.Timeout(timeout_s)) as http:
            for attempt in range(BUSY_RETRIES + 1):
                response = http.get(url, headers=headers)
                if response.status_code not in (429, 503) or attempt == BUSY_RETRIES:
                    break
                time.sleep(_retry_after(response))
    except httpx.HTTPError as error:
        raise TargetUnavailable(redact(describe_transport_error(error, url, timeout_s),
                                       target.secrets)) from None  # fmt: skip
    cause = _judge(response, target, f"GET {url}")
    if cause is not None:
        raise TargetUnavailable(redact(cause, target.secrets))


def describe_transport_error(error: BaseException, url: str, timeout_s: float) -> str:
    """One line saying why ``url`` got no HTTP answer."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    address = f"{host}:{parts.port or (443 if parts.scheme == 'https' else 80)}"
    chain = list(_causes(error))
    if any(isinstance(e, OSError) and _is_resolution_error(e) for e in chain):
        return f"cannot resolve host {host!r}: check --base-url (or the DNS/proxy settings)"
    if any(isinstance(e, ConnectionRefusedError) for e in chain) or "refused" in str(error):
        return f"connection refused by {address}: is the server running on that port?"
    if any(isinstance(e, ssl.SSLError) for e in chain) or "SSL" in str(error):
        return f"TLS handshake with {address} failed: {_first_line(error)}"
    if isinstance(error, httpx.TimeoutException) or any(isinstance(e, TimeoutError) for e in chain):
        return f"no answer from {address} within {timeout_s:g} s (timeout)"
    if isinstance(error, httpx.RemoteProtocolError):
        return f"{address} closed the connection without an HTTP answer (is it an HTTP server?)"
    if isinstance(error, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return f"--base-url is not a usable URL: {_first_line(error)}"
    return f"cannot reach {address}: {type(error).__name__}: {_first_line(error)}"


def _judge(response: httpx.Response, target: Target, request: str) -> str | None:
    """Why this answer to the preflight call means the suite cannot run, or ``None``."""
    status = response.status_code
    content_type = response.headers.get("content-type", "(none)").split(";")[0]
    body = _json(response)
    if status in (401, 403):
        message = _error_message(body)
        return (
            f"the API key {mask_key(target.api_key)} was refused: {request} answered {status}"
            + (f" ({message})" if message else "")
        )
    if status in (404, 405):
        hint = (
            "; give the server root without /v1"
            if target.base_url.rstrip("/").endswith("/v1")
            else "; is --base-url the root of a server implementing spec/openapi.yaml?"
        )
        return f"not this API: {request} answered {status}{hint}"
    if body is None:
        return (
            f"not this API: {request} answered {status} with {content_type}, not JSON "
            f"({_quote(response.text)})"
        )
    if status in (429, 503):
        return f"the server is busy: {request} answered {status} {BUSY_RETRIES + 1} times"
    if status != 200:
        message = _error_message(body) or _quote(response.text)
        return f"{request} answered {status} to a plain authenticated read ({message})"
    fields = body if isinstance(body, dict) else {}
    missing = [name for name in _required_fields() if name not in fields]
    if missing:
        return (
            f"not this API: {request} answered JSON without {', '.join(missing)} "
            f"({_quote(response.text)})"
        )
    return None


def _preflight_path() -> str:
    """The preflight operation's path, from the spec (relative to its ``/v1`` server)."""
    return operation_labels()[PREFLIGHT_OPERATION_ID].split(" ", 1)[1]


def _required_fields() -> list[str]:
    """What the spec requires of the preflight operation's 200 body."""
    responses = operation_spec(PREFLIGHT_OPERATION_ID)["responses"]
    schema = resolve_ref(responses["200"]["content"]["application/json"]["schema"])
    return [str(name) for name in schema.get("required", [])]


def _json(response: httpx.Response) -> object | None:
    try:
        return json.loads(response.content)
    except ValueError:
        return None


def _error_message(body: object) -> str:
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return _quote(str(body["error"].get("message", "")))
    return ""


def _quote(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        return "empty body"
    return text if len(text) <= MAX_QUOTED_CHARS else text[:MAX_QUOTED_CHARS] + "..."


def _first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]


def _retry_after(response: httpx.Response) -> float:
    try:
        return min(max(float(response.headers.get("Retry-After", "1")), 0.0), MAX_BUSY_WAIT_S)
    except ValueError:
        return 1.0


def _causes(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _is_resolution_error(error: OSError) -> bool:
    return isinstance(error, socket.gaierror) or "Name or service not known" in str(error)


def is_transport_error(error: BaseException) -> bool:
    """Did this exception come from a request that got no HTTP answer at all?"""
    import requests

    transport = (httpx.TransportError, requests.ConnectionError, requests.Timeout,
                 ConnectionError, TimeoutError)  # fmt: skip
    return any(isinstance(e, transport) for e in _causes(error))


class TargetWatch:
    """Decides, after a request got no answer, whether the target is gone for the rest of the run.

    One request timing out is reported as a check that got no answer; a target that no longer
    passes the preflight is *lost*, and the run stops there (:attr:`lost`).
    """

    def __init__(self, target: Target, *, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> None:
        self.target = target
        self.timeout_s = timeout_s
        #: Why the target is considered gone, once it is.
        self.lost: str | None = None
        self._lock = threading.Lock()

    def no_answer(self, error: BaseException) -> str:
        """Record a request that got no answer; returns the one-line detail for its check."""
        with self._lock:
            if self.lost is None:
                try:
                    preflight(self.target, timeout_s=self.timeout_s)
                except TargetUnavailable as gone:
                    self.lost = f"the target stopped answering: {gone}"
        detail = f"no answer: {type(error).__name__}: {_first_line(error)}"
        return redact(detail, self.target.secrets)

    def mark_lost(self, cause: str) -> None:
        with self._lock:
            if self.lost is None:
                self.lost = redact(cause, self.target.secrets)
