"""Replay: serve a recorded run back, deterministically, with the upstream gone.

A request matches a recorded one with the same method, path, query and body (JSON compared as
data, key order aside). ``Idempotency-Key`` values are mapped one to one: the first new key seen
for a recorded request is bound to that request's recorded key, and a retry with the same new
key gets the same recorded answer again. Ids the server issued need no mapping: the client only
knows them from replayed answers. Identical requests (polling) get the recorded answers in order,
then the last one again, so a replay never polls longer than the recorded run did.

A request the cassette does not hold gets 404 ``replay_miss`` naming the nearest recorded request
and what differs, and the same text on stderr.

Presigned URLs in the answers point at the replay itself, which serves the files the recorded
run fetched through the proxy (``_replay_presigned``): a download works offline.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from urllib.parse import parse_qsl

import orjson

from together_rl_contract_tests.proxy._exchange import Exchange, json_body
from together_rl_contract_tests.proxy._forwarding import Receive, Scope, Send, read_body
from together_rl_contract_tests.proxy._json_diff import json_differences
from together_rl_contract_tests.proxy._replay_presigned import REPLAY_PREFIX, RecordedFiles

__all__ = ["ReplayServer"]

MatchKey = tuple[str, str, str, bytes]
#: Not replayed: these describe the recorded connection and encoding, not the answer.
_DROPPED_RESPONSE_HEADERS = frozenset(
    {
        "content-length",
        "content-encoding",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "date",
        "server",
    }
)


def _canonical_body(body: bytes) -> bytes:
    if not body.strip():
        return b""
    try:
        return orjson.dumps(json_body(body), option=orjson.OPT_SORT_KEYS)
    except (ValueError, TypeError):
        return body


def _match_key(method: str, path: str, query: str, body: bytes) -> MatchKey:
    canonical_query = "&".join(f"{k}={v}" for k, v in sorted(parse_qsl(query, True)))
    return method.upper(), path, canonical_query, _canonical_body(body)


class ReplayServer:
    """An ASGI app answering from ``exchanges`` (``_cassette.read_cassette``)."""

    def __init__(self, exchanges: list[Exchange], log: Callable[[str], None] | None = None) -> None:
        self.log = log or (lambda line: print(line, file=sys.stderr, flush=True))
        self._groups: dict[tuple[MatchKey, str | None], list[Exchange]] = {}
        self.files = RecordedFiles(exchanges)
        for exchange in sorted(exchanges, key=lambda e: e.seq):
            if exchange.url is not None:  # a presigned URL's, served by ``files``
                continue
            key = _match_key(exchange.method, exchange.path, exchange.query, exchange.request_body)
            group = (key, exchange.header("Idempotency-Key"))
            self._groups.setdefault(group, []).append(exchange)
        self._served: dict[tuple[MatchKey, str | None], int] = {}
        self._recorded_key: dict[str, str] = {}  # new Idempotency-Key -> recorded one
        self._bound: set[str] = set()  # recorded keys already bound to a new one
        self.replayed = 0
        self.misses: list[str] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] != "http":
            return
        body = await read_body(receive)
        headers = {n.decode("latin-1").lower(): v.decode("latin-1") for n, v in scope["headers"]}
        query = scope.get("query_string", b"").decode("latin-1")
        message = ""
        if scope["path"].startswith(REPLAY_PREFIX):
            found = self.files.answer(scope["method"], scope["path"])
            exchange, message = (None, found) if isinstance(found, str) else (found, "")
        else:
            exchange = self.answer(
                scope["method"], scope["path"], query, body, headers.get("idempotency-key")
            )
        if exchange is None:
            message = message or self.explain_miss(scope["method"], scope["path"], query, body)
            self.misses.append(message)
            self.log(f"REPLAY MISS {message}")
            payload = orjson.dumps(
                {
                    "error": {
                        "message": message,
                        "type": "replay_miss",
                        "param": None,
                        "code": "replay_miss",
                    }
                }
            )
            await _respond(send, 404, [("content-type", "application/json")], payload)
            return
        self.replayed += 1
        base_url = f"{scope.get('scheme', 'http')}://{headers.get('host', 'localhost')}"
        kept = [
            (n, self.files.rewrite(v.encode("latin-1"), base_url).decode("latin-1"))
            for n, v in exchange.response_headers
            if n.lower() not in _DROPPED_RESPONSE_HEADERS
        ]
        body = exchange.response_body
        if "json" in (exchange.header("content-type", response=True) or ""):
            body = self.files.rewrite(body, base_url)
        if not 100 <= exchange.status <= 599:  # the client got the proxy's 502, as here
            message = f"proxy: the upstream answered HTTP status {exchange.status}, outside "
            error = {"message": message + "100-599, which cannot be relayed",
                     "type": "proxy_error", "param": None, "code": "bad_gateway"}  # fmt: skip
            await _respond(send, 502, [("content-type", "application/json")],
                           orjson.dumps({"error": error}))  # fmt: skip
            return
        await _respond(send, exchange.status, kept, body)

    # ------------------------------------------------------------------------- matching

    def answer(
        self, method: str, path: str, query: str, body: bytes, idempotency_key: str | None
    ) -> Exchange | None:
        """The recorded exchange answering this request, or None (a miss)."""
        key = _match_key(method, path, query, body)
        recorded_key: str | None = None
        if idempotency_key is not None:
            recorded_key = self._recorded_key.get(idempotency_key)
            if recorded_key is None:
                free = [
                    k
                    for (m, k) in self._groups
                    if m == key and k is not None and k not in self._bound
                ]
                if not free:
                    return None
                recorded_key = free[0]  # groups are in recorded order: the earliest first
                self._recorded_key[idempotency_key] = recorded_key
                self._bound.add(recorded_key)
        group = (key, recorded_key)
        answers = self._groups.get(group)
        if answers is None:
            return None
        served = self._served.get(group, 0)
        self._served[group] = served + 1
        return answers[min(served, len(answers) - 1)]

    def explain_miss(self, method: str, path: str, query: str, body: bytes) -> str:
        wanted = f"{method} {path}" + (f"?{query}" if query else "")
        if not self._groups:
            return f"{wanted}: the cassette is empty"
        firsts = [answers[0] for answers in self._groups.values()]
        nearest = min(firsts, key=lambda e: _distance(e, method, path, query, body))
        differences = _differences(nearest, method, path, query, body)
        if not differences:
            differences = ["its Idempotency-Key was already bound to another request's key"]
        return (
            f"no recorded exchange for {wanted}; nearest recorded: {nearest.target} "
            f"(#{nearest.seq}); differs: " + "; ".join(differences)
        )


def _distance(
    recorded: Exchange, method: str, path: str, query: str, body: bytes
) -> tuple[int, ...]:
    segments = recorded.path.split("/"), path.split("/")
    path_distance = sum(a != b for a, b in zip(*segments, strict=False)) + abs(
        len(segments[0]) - len(segments[1])
    )
    same_body = _canonical_body(recorded.request_body) == _canonical_body(body)
    return (recorded.method != method, path_distance, recorded.query != query, not same_body)


def _differences(recorded: Exchange, method: str, path: str, query: str, body: bytes) -> list[str]:
    found = []
    if recorded.method != method:
        found.append(f"method: recorded {recorded.method}, got {method}")
    if recorded.path != path:
        found.append(f"path: recorded {recorded.path}, got {path}")
    if _match_key("", "", recorded.query, b"")[2] != _match_key("", "", query, b"")[2]:
        found.append(f"query: recorded {recorded.query!r}, got {query!r}")
    if _canonical_body(recorded.request_body) != _canonical_body(body):
        try:
            found += [
                f"body {d}"
                for d in json_differences(json_body(recorded.request_body), json_body(body))
            ]
        except ValueError:
            found.append("body: differs (not JSON)")
    return found


async def _respond(send: Send, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
    raw: list[tuple[bytes, bytes]] = [
        (n.encode("latin-1"), v.encode("latin-1")) for n, v in headers
    ]
    raw.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
