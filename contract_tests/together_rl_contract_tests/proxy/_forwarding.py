"""The validating, recording proxy: an ASGI app that forwards every request to the upstream
unchanged and returns the upstream's answer unchanged, streaming it back as it arrives.

The caller's ``Authorization`` is forwarded and then forgotten: the exchange handed to the
:class:`TrafficMonitor` carries only the public headers, and the key is replaced by
``<redacted>`` wherever else it appears (body, query, header values). ``Host`` is the upstream's,
so URLs the upstream builds from it (presigned payload URLs) point at the upstream, as the live
API's point at its object store: large payloads go there directly, not through the proxy.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import Any

import httpx

from together_rl_contract_tests.proxy._exchange import Exchange, decode_content, public_headers
from together_rl_contract_tests.proxy._traffic_monitor import TrafficMonitor

__all__ = ["ValidatingProxy", "read_body"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

#: Hop-by-hop headers (RFC 9110 §7.6.1) are the connection's, never forwarded.
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
    }
)
#: Headers httpx adds on its own; removed again when the caller did not send them.
_HTTPX_DEFAULTS = ("accept", "accept-encoding", "user-agent")
REDACTED = b"<redacted>"


class ValidatingProxy:
    """``ValidatingProxy(upstream, monitor)``: an ASGI app; ``upstream`` is the server root
    (``https://api.together.ai``, without ``/v1``)."""

    def __init__(
        self,
        upstream: str,
        monitor: TrafficMonitor,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self.monitor = monitor
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._seq = itertools.count(1)

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:  # created on the serving loop
            self._client = httpx.AsyncClient(
                timeout=None,  # the caller's own timeouts govern
                limits=httpx.Limits(max_connections=None, max_keepalive_connections=64),
                transport=self._transport,
                follow_redirects=False,
            )
        return self._client

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._forward(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self._client is not None:
                    await self._client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _forward(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.monotonic()
        request_chunks: list[bytes] = []  # the body, kept while it streams to the upstream
        raw_headers = [(n.decode("latin-1"), v.decode("latin-1")) for n, v in scope["headers"]]
        sent_names = {n.lower() for n, _ in raw_headers}
        # Without either header the request has no body (a GET): sent without one, not chunked.
        has_body = "content-length" in sent_names or "transfer-encoding" in sent_names
        query = scope.get("query_string", b"").decode("latin-1")
        raw_path = (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
        url = self.upstream + raw_path + (f"?{query}" if query else "")
        client = self._http()
        request = client.build_request(
            scope["method"],
            url,
            headers=[(n, v) for n, v in raw_headers if n.lower() not in HOP_BY_HOP],
            content=_tee(receive, request_chunks) if has_body else b"",
        )
        for name in _HTTPX_DEFAULTS:
            if name not in sent_names:
                del request.headers[name]
        try:
            response = await client.send(request, stream=True)
        except httpx.HTTPError as exc:
            await _bad_gateway(send, f"proxy: the upstream did not answer: {exc!r}")
            return
        chunks: list[bytes] = []
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": response.status_code,
                    "headers": [
                        (n, v)
                        for n, v in response.headers.raw
                        if n.decode("latin-1").lower() not in HOP_BY_HOP
                    ],
                }
            )
            async for chunk in response.aiter_raw():
                chunks.append(chunk)
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            await response.aclose()
        finished = time.monotonic()
        secrets = _secrets(raw_headers)
        response_headers = [
            (n.decode("latin-1"), v.decode("latin-1")) for n, v in response.headers.raw
        ]
        raw_body = b"".join(chunks)
        try:
            decoded = decode_content(raw_body, response.headers.get("content-encoding"))
        except OSError:
            decoded = raw_body
        self.monitor.submit(
            Exchange(
                seq=next(self._seq),
                method=scope["method"],
                path=_scrub_text(scope["path"], secrets),
                query=_scrub_text(query, secrets),
                request_headers=_scrub_headers(raw_headers, secrets),
                request_body=_scrub(b"".join(request_chunks), secrets),
                status=response.status_code,
                response_headers=_scrub_headers(
                    [(n, v) for n, v in response_headers if n.lower() != "content-encoding"],
                    secrets,
                ),
                response_body=_scrub(decoded, secrets),
                started=started,
                finished=finished,
            )
        )


def _secrets(headers: list[tuple[str, str]]) -> list[bytes]:
    """The credentials the caller sent: each secret header's value, and its token after the
    scheme (``Bearer <key>``), longest first."""
    found = set()
    for name, value in headers:
        if name.lower() in ("authorization", "proxy-authorization", "x-api-key"):
            found.add(value.strip())
            found.add(value.strip().split(" ", 1)[-1].strip())
    return sorted((s.encode() for s in found if len(s) >= 4), key=len, reverse=True)


def _scrub(data: bytes, secrets: list[bytes]) -> bytes:
    for secret in secrets:
        if secret in data:
            data = data.replace(secret, REDACTED)
    return data


def _scrub_text(text: str, secrets: list[bytes]) -> str:
    return _scrub(text.encode("latin-1", "replace"), secrets).decode("latin-1")


def _scrub_headers(headers: list[tuple[str, str]], secrets: list[bytes]) -> list[tuple[str, str]]:
    return [(n, _scrub_text(v, secrets)) for n, v in public_headers(headers)]


async def _tee(receive: Receive, kept: list[bytes]) -> AsyncIterator[bytes]:
    """The request body as it arrives, each chunk also appended to ``kept``."""
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return
        chunk = message.get("body", b"")
        kept.append(chunk)
        if chunk:
            yield chunk
        if not message.get("more_body"):
            return


async def read_body(receive: Receive) -> bytes:
    """The whole body of an ASGI request."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    return b"".join(chunks)


async def _bad_gateway(send: Send, message: str) -> None:
    import orjson

    payload = orjson.dumps(
        {"error": {"message": message, "type": "proxy_error", "param": None, "code": "bad_gateway"}}
    )
    await send(
        {
            "type": "http.response.start",
            "status": 502,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})
