"""Presigned URLs relayed through the proxy, so that the files behind them are recorded too.

The API hands out URLs that work without a key (checkpoint files, payload uploads and downloads).
The proxy gives the client ``{proxy}/_proxy/presigned/{handle}/{file name}`` in their place (in a
JSON answer or a ``Location`` header) and keeps the real URL in memory only, under a random
handle. A request to that address is forwarded to the real URL (without the caller's
credentials) and recorded like any exchange, under the real URL with its credentials redacted:
the cassette holds the bytes, never a URL that works.
"""

from __future__ import annotations

import collections
import secrets
from urllib.parse import quote, urlsplit

from together_rl_contract_tests.proxy._redaction import presigned_urls

__all__ = ["RELAY_PREFIX", "PresignedRelay"]

RELAY_PREFIX = "/_proxy/presigned/"
_KEPT = 4096  # handles remembered (the oldest are forgotten first)


class PresignedRelay:
    def __init__(self) -> None:
        self._targets: collections.OrderedDict[str, str] = collections.OrderedDict()

    def rewrite(self, data: bytes, base_url: str) -> bytes:
        """``data`` with each presigned URL replaced by a relay address under ``base_url``."""
        found = presigned_urls(data)
        if not found:
            return data
        parts, last = [], 0
        for start, end, url in found:
            parts += [data[last:start], self._register(url, base_url).encode()]
            last = end
        parts.append(data[last:])
        return b"".join(parts)

    def target(self, path: str) -> str | None:
        """The real URL behind a relay path, or None (unknown or forgotten handle)."""
        handle = path.removeprefix(RELAY_PREFIX).split("/", 1)[0]
        return self._targets.get(handle)

    def _register(self, url: str, base_url: str) -> str:
        handle = secrets.token_urlsafe(18)
        self._targets[handle] = url
        while len(self._targets) > _KEPT:
            self._targets.popitem(last=False)
        name = urlsplit(url).path.rsplit("/", 1)[-1] or "file"
        return f"{base_url.rstrip('/')}{RELAY_PREFIX}{handle}/{quote(name, safe='')}"
