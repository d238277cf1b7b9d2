"""Cassettes: a recorded run as JSON lines, one exchange a line, readable by its owner only.

A line is ``{"seq", "request": {method, path, query, headers, body}, "response": {status,
headers, body}, "duration_ms"}``, plus ``"defects"`` (how the answer broke HTTP, what the record
cut) and ``"url"`` (a presigned URL the proxy relayed, redacted) when there are any. Bodies are
kept as text (exactly as sent) or, when not UTF-8, as ``{"base64": ...}``. Headers are the
public ones (``_exchange.SECRET_HEADERS`` never reach a cassette); the proxy has already
replaced the caller's key and every presigned URL's credentials wherever they appeared.
"""

from __future__ import annotations

import base64
import os
import re
import threading
from pathlib import Path
from typing import IO, Any

import orjson

from together_rl_contract_tests.proxy._exchange import Exchange

__all__ = ["CassetteWriter", "read_cassette"]


_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")


class CassetteWriter:
    """Appends exchanges to ``path`` (created or truncated with mode 0600), a line each, flushed
    at once so that a killed proxy leaves a usable cassette."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)  # an existing file keeps its mode on open; not this one
        self.path = path
        self._file: IO[bytes] = os.fdopen(fd, "wb")
        self._lock = threading.Lock()

    def write(self, exchange: Exchange) -> None:
        line: dict[str, Any] = {
            "seq": exchange.seq,
            "request": {
                "method": exchange.method,
                "path": exchange.path,
                "query": exchange.query,
                "headers": exchange.request_headers,
                "body": _encode(exchange.request_body),
            },
            "response": {
                "status": exchange.status,
                "headers": exchange.response_headers,
                "body": _encode(exchange.response_body),
            },
            "duration_ms": round((exchange.finished - exchange.started) * 1000, 3),
        }
        if exchange.defects:
            line["defects"] = exchange.defects
        if exchange.url is not None:
            line["url"] = exchange.url
        encoded = orjson.dumps(line)
        with self._lock:
            self._file.write(encoded)  # (not ``encoded + b"\n"``: a copy of a large line)
            self._file.write(b"\n")
            self._file.flush()

    def close(self) -> None:
        with self._lock:
            self._file.close()


def read_cassette(path: Path) -> list[Exchange]:
    exchanges = []
    with path.open("rb") as file:
        for number, raw in enumerate(file, start=1):
            if not raw.strip():
                continue
            try:
                line = orjson.loads(raw)
                request, response = line["request"], line["response"]
                exchanges.append(
                    Exchange(
                        seq=int(line["seq"]),
                        method=request["method"],
                        path=request["path"],
                        query=request.get("query", ""),
                        request_headers=[(n, v) for n, v in request["headers"]],
                        request_body=_decode(request["body"]),
                        status=int(response["status"]),
                        response_headers=[(n, v) for n, v in response["headers"]],
                        response_body=_decode(response["body"]),
                        started=0.0,
                        finished=float(line.get("duration_ms", 0.0)) / 1000,
                        defects=[str(d) for d in line.get("defects", [])],
                        url=line.get("url"),
                    )
                )
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"{path}:{number}: not a cassette line ({exc})") from exc
    return exchanges


def _encode(body: bytes) -> Any:
    """Text as it is; anything else (not UTF-8, or with control characters that JSON would
    write six bytes each) as base64."""
    if not _CONTROL.search(body):
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError:
            pass
    return {"base64": base64.b64encode(body).decode()}


def _decode(body: Any) -> bytes:
    if isinstance(body, str):
        return body.encode("utf-8")
    return base64.b64decode(body["base64"])
