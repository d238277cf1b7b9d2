"""The validating, recording proxy: an ASGI app that forwards every request to the upstream
unchanged and returns the upstream's answer unchanged, streaming it back as it arrives.

The caller's ``Authorization`` is forwarded and then forgotten: the exchange handed to the
:class:`TrafficMonitor` carries only the public headers, and the key (in any encoding) and the
credentials of presigned URLs are replaced by ``<redacted>`` wherever else they appear
(``_redaction``). Presigned URLs in an answer are the one change: they point at the proxy, which
relays them (``_presigned_relay``), so that the files behind them are recorded as well.

An answer that breaks HTTP is never dropped: it is recorded with its defects named, and the
client gets it as upstream sent it (a body cut short is cut short for the client too) or, when it
cannot be relayed at all (no answer, a status outside 100-599), a 502 saying why.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

import httpx
import orjson

from together_rl_contract_tests.proxy._body_recorder import DEFAULT_RECORD_LIMIT, BodyRecorder
from together_rl_contract_tests.proxy._exchange import Exchange, public_headers
from together_rl_contract_tests.proxy._presigned_relay import RELAY_PREFIX, PresignedRelay
from together_rl_contract_tests.proxy._redaction import Redactor, redact_presigned
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
#: A JSON answer up to this size is read whole before it is relayed, to point its presigned
#: URLs at the proxy (the API's answers that hand them out are a few hundred bytes).
_REWRITE_LIMIT = 1024 * 1024


class ValidatingProxy:
    """``ValidatingProxy(upstream, monitor)``: an ASGI app; ``upstream`` is the server root
    (``https://api.together.ai``, without ``/v1``). ``record_limit``: the bytes kept of each
    body (decoded); the client always gets all of it."""

    def __init__(
        self,
        upstream: str,
        monitor: TrafficMonitor,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        record_limit: int = DEFAULT_RECORD_LIMIT,
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self.monitor = monitor
        self.record_limit = record_limit
        self.relay = PresignedRelay()
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
            if not scope["path"].startswith(RELAY_PREFIX):
                await self._forward(scope, receive, send)
            elif (target := self.relay.target(scope["path"])) is not None:
                await self._forward(scope, receive, send, presigned=target)
            else:
                message = "proxy: no such relayed URL (another proxy run's, or forgotten)"
                await _proxy_error(send, 404, "not_found", message)

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

    async def _forward(
        self, scope: Scope, receive: Receive, send: Send, presigned: str | None = None
    ) -> None:
        """Forward to the upstream, or to the real ``presigned`` URL behind a relay path."""
        started = time.monotonic()
        raw_headers = [(n.decode("latin-1"), v.decode("latin-1")) for n, v in scope["headers"]]
        sent_names = {n.lower() for n, _ in raw_headers}
        # Without either header the request has no body (a GET): sent without one, not chunked.
        has_body = "content-length" in sent_names or "transfer-encoding" in sent_names
        query = scope.get("query_string", b"").decode("latin-1")
        redactor = Redactor.for_request(raw_headers, query)
        sent = BodyRecorder(None, self.record_limit, "request body")
        forwarded = [(n, v) for n, v in raw_headers if n.lower() not in HOP_BY_HOP]
        if presigned is None:
            raw_path = (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
            url = self.upstream + raw_path + (f"?{query}" if query else "")
        else:  # a presigned URL works without credentials: none of the caller's go there
            url, forwarded = presigned, public_headers(forwarded)
        client = self._http()
        request = client.build_request(
            scope["method"], url, headers=forwarded,
            content=_tee(receive, sent) if has_body else b"",
        )  # fmt: skip
        for name in _HTTPX_DEFAULTS:
            if name not in sent_names:
                del request.headers[name]
        answer = _Answer()
        try:
            response = await client.send(request, stream=True)
        except httpx.HTTPError as exc:
            reason = redactor.text(f"the upstream did not answer: {exc!r}")
            answer.body = await _proxy_error(send, 502, "bad_gateway", f"proxy: {reason}")
            answer.headers = [("content-type", "application/json")]
            answer.defects.append(f"no answer: {reason}; the client got 502")
        else:
            try:
                await self._relay_answer(scope, response, send, answer)
            finally:
                await response.aclose()
        path, where = scope["path"], None
        if presigned is not None:
            parts = urlsplit(presigned)
            path, query, where = parts.path, parts.query, redactor.text(presigned)
        kept_headers = [(n, v) for n, v in answer.headers if n.lower() != "content-encoding"]
        self.monitor.submit(
            Exchange(
                seq=next(self._seq),
                method=scope["method"],
                path=redactor.text(path),
                query=redactor.text("?" + query)[1:],  # "?" marks its parameters as a URL's
                request_headers=redactor.headers(public_headers(raw_headers)),
                request_body=redactor.bytes(sent.finish()),
                status=answer.status,
                response_headers=redactor.headers(public_headers(kept_headers)),
                response_body=redactor.bytes(answer.body),
                started=started,
                finished=time.monotonic(),
                defects=[redactor.text(d) for d in sent.defects + answer.defects],
                url=where,
            )
        )

    async def _relay_answer(
        self, scope: Scope, response: httpx.Response, send: Send, answer: _Answer
    ) -> None:
        """Send the upstream's answer to the client, filling ``answer`` with what is kept."""
        answer.status = response.status_code
        raw_headers = response.headers.raw
        answer.headers = [(n.decode("latin-1"), v.decode("latin-1")) for n, v in raw_headers]
        kept = BodyRecorder(response.headers.get("content-encoding"), self.record_limit)
        chunks = response.aiter_raw()
        if not 100 <= response.status_code <= 599:
            complete, broken = await _drain(chunks, kept)
            answer.body = kept.finish(complete=complete)
            answer.defects += [f"status {response.status_code}: not an HTTP status (100-599); "
                               "the client got 502", *broken, *kept.defects]  # fmt: skip
            await _proxy_error(send, 502, "bad_gateway", "proxy: the upstream answered HTTP "
                               f"status {response.status_code}, outside 100-599, which cannot "
                               "be relayed")  # fmt: skip
            return
        base_url = _base_url(scope)
        headers = [
            (n, self.relay.rewrite(v, base_url) if n.lower() == b"location" else v)
            for n, v in response.headers.raw
            if n.decode("latin-1").lower() not in HOP_BY_HOP
        ]
        head: list[bytes] = []
        broken: list[str] = []
        rewritten = None
        if "json" in response.headers.get("content-type", "").lower():
            broken = await _read_up_to(chunks, head, _REWRITE_LIMIT)
            rewritten = None if broken else self._rewritten(b"".join(head), response, base_url)
        if rewritten is not None:  # the client gets it decoded; the record keeps upstream's
            headers = [(n, v) for n, v in headers
                       if n.lower() not in (b"content-length", b"content-encoding")]  # fmt: skip
            headers.append((b"content-length", str(len(rewritten)).encode()))
        for chunk in head:
            kept.feed(chunk)
        start = {"type": "http.response.start", "status": response.status_code, "headers": headers}
        await send(start)
        for chunk in [rewritten] if rewritten is not None else head:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        if not broken:
            _, broken = await _drain(chunks, kept, send)
        answer.body = kept.finish(complete=not broken)
        answer.defects += broken + kept.defects
        if broken:  # the client's answer ends where upstream's did: its connection is closed
            return
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    def _rewritten(self, raw: bytes, response: httpx.Response, base_url: str) -> bytes | None:
        """The answer with its presigned URLs pointed at the relay (decoded), or None."""
        decoder = BodyRecorder(response.headers.get("content-encoding"), _REWRITE_LIMIT)
        decoder.feed(raw)
        decoded = decoder.finish()
        if decoder.defects:
            return None
        rewritten = self.relay.rewrite(decoded, base_url)
        return None if rewritten is decoded else rewritten


class _Answer:
    """What the proxy keeps of the upstream's answer (or of its own 502)."""

    def __init__(self) -> None:
        self.status = 502
        self.headers: list[tuple[str, str]] = []
        self.body = b""
        self.defects: list[str] = []


def _base_url(scope: Scope) -> str:
    """The proxy's own root as the client addressed it."""
    for name, value in scope["headers"]:
        if name.lower() == b"host":
            return f"{scope.get('scheme', 'http')}://{value.decode('latin-1')}"
    host, port = scope.get("server") or ("127.0.0.1", 80)
    return f"{scope.get('scheme', 'http')}://{host}:{port}"


async def _read_up_to(chunks: AsyncIterator[bytes], head: list[bytes], limit: int) -> list[str]:
    """Append chunks to ``head`` until the body ends or passes ``limit``; the defect if it broke."""
    size = 0
    try:
        while size <= limit:
            chunk = await chunks.__anext__()
            head.append(chunk)
            size += len(chunk)
    except StopAsyncIteration:
        return []
    except httpx.HTTPError as exc:
        return [_broken_body(exc, size)]
    return []


async def _drain(
    chunks: AsyncIterator[bytes], kept: BodyRecorder, send: Send | None = None
) -> tuple[bool, list[str]]:
    """Read the rest of the body into ``kept`` (and to the client): (complete, defects)."""
    try:
        async for chunk in chunks:
            kept.feed(chunk)
            if send is not None:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
    except httpx.HTTPError as exc:
        return False, [_broken_body(exc, kept.wire_bytes)]
    return True, []


def _broken_body(exc: Exception, received: int) -> str:
    reason = redact_presigned(str(exc).encode()).decode("latin-1")
    return (
        f"broken body: {reason} ({type(exc).__name__} after {received} bytes); the client's "
        "answer was cut there and its connection closed"
    )


async def _proxy_error(send: Send, status: int, code: str, message: str) -> bytes:
    """Answer with the proxy's own JSON error; returns the body sent."""
    payload = orjson.dumps(
        {"error": {"message": message, "type": "proxy_error", "param": None, "code": code}}
    )
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})
    return payload


async def _tee(receive: Receive, kept: BodyRecorder) -> AsyncIterator[bytes]:
    """The request body as it arrives, each chunk also fed to ``kept``."""
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return
        chunk = message.get("body", b"")
        kept.feed(chunk)
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
