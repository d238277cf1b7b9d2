"""Replay's side of presigned URLs: the files the recorded run fetched, served offline.

A cassette holds each presigned URL with its credentials redacted, so it works nowhere. Replay
points every such URL in the answers it serves (JSON bodies, ``Location``) at itself,
``{replay}/_replay/presigned/{n}/{file name}``, and answers a request there with what the proxy
recorded when the run fetched the real URL through its relay (method and redacted URL match).
"""

from __future__ import annotations

from urllib.parse import quote, urlsplit

from together_rl_contract_tests.proxy._exchange import Exchange
from together_rl_contract_tests.proxy._redaction import presigned_urls

__all__ = ["REPLAY_PREFIX", "RecordedFiles"]

REPLAY_PREFIX = "/_replay/presigned/"


class RecordedFiles:
    def __init__(self, exchanges: list[Exchange]) -> None:
        self._recorded: dict[tuple[str, str], list[Exchange]] = {}
        for exchange in sorted(exchanges, key=lambda e: e.seq):
            if exchange.url is not None:
                key = (exchange.method.upper(), exchange.url)
                self._recorded.setdefault(key, []).append(exchange)
        self._urls: list[str] = []  # index -> redacted URL
        self._served: dict[tuple[str, str], int] = {}

    def rewrite(self, data: bytes, base_url: str) -> bytes:
        """``data`` with each redacted presigned URL pointed at this replay."""
        found = presigned_urls(data)
        if not found:
            return data
        parts, last = [], 0
        for start, end, url in found:
            if url not in self._urls:
                self._urls.append(url)
            name = urlsplit(url).path.rsplit("/", 1)[-1] or "file"
            local = f"{base_url.rstrip('/')}{REPLAY_PREFIX}{self._urls.index(url)}/"
            parts += [data[last:start], (local + quote(name, safe="")).encode()]
            last = end
        parts.append(data[last:])
        return b"".join(parts)

    def answer(self, method: str, path: str) -> Exchange | str:
        """The recorded answer for a request to a replay-local URL, or why there is none."""
        index = path.removeprefix(REPLAY_PREFIX).split("/", 1)[0]
        if not index.isdigit() or int(index) >= len(self._urls):
            return f"{method} {path}: no presigned URL of this replay has that address"
        url = self._urls[int(index)]
        key = (method.upper(), url)
        answers = self._recorded.get(key)
        if not answers:
            return (
                f"{method} {url}: the recorded run never sent this request through the proxy's "
                "relay, so the cassette does not hold its answer"
            )
        served = self._served.get(key, 0)
        self._served[key] = served + 1
        exchange = answers[min(served, len(answers) - 1)]
        cut = [d for d in exchange.defects if d.startswith("record cut")]
        if cut:
            return f"{method} {url}: the cassette holds only part of this answer ({cut[0]})"
        return exchange
