"""The proxy against a hostile upstream and a careless client: every exchange is kept, no secret is.

Families of probes, each run through a real proxy on loopback (``proxy_in_thread``) that records
a cassette and writes its reports:

- **malformed answers**: a raw-socket upstream sends answers that break HTTP (bad compression,
  truncated bodies, bad chunking, a status outside 100-599, no status line, a closed
  connection); each must be recorded with its defect named, and the client must get upstream's
  answer or a 502 saying why, with no traceback in the log;
- **decompression bomb**: a small gzip answer that expands far beyond the record limit is relayed
  whole to the client and recorded cut at the limit, the cut named;
- **key encodings** (``reliability.proxy_secrets``): the key sent raw, percent-encoded,
  JSON-escaped, in Basic auth and in a query parameter, echoed back by the upstream; no form of
  it may reach the cassette or the reports;
- **presigned URLs** (``reliability.proxy_secrets``): a checkpoint download through the proxy
  (emulator upstream); the cassette and reports hold no URL that works without the key, and
  replay serves the file offline.

``run_proxy_hostile()`` runs them all and says which held.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gzip
import logging
import socket
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
from together_rl_contract_tests.proxy import proxy_in_thread, read_cassette

from reliability._probes import Probe
from reliability.proxy_secrets import probe_key_encodings, probe_presigned

__all__ = [
    "MALFORMED_ANSWERS",
    "MalformedAnswer",
    "ProxyHostileReport",
    "gzip_bomb",
    "probe_bomb",
    "probe_malformed",
    "proof",
    "raw_upstream",
    "run_proxy_hostile",
]

_JSON = b'{"data": [], "object": "list"}'


def _answer(status: bytes, headers: list[bytes], body: bytes) -> bytes:
    return b"HTTP/1.1 " + status + b"\r\n" + b"".join(h + b"\r\n" for h in headers) + b"\r\n" + body


def _sized(status: bytes, body: bytes, *extra: bytes, length: int | None = None) -> bytes:
    size = len(body) if length is None else length
    headers = [b"Content-Type: application/json", *extra, b"Content-Length: %d" % size]
    return _answer(status, headers, body)


@dataclasses.dataclass(frozen=True)
class MalformedAnswer:
    name: str
    raw: bytes  # what the upstream sends, then it closes the connection
    defect: str  # a word the recorded defect must hold
    client_gets_502: bool  # else the client gets upstream's answer as sent (cut when it is)


_GZIPPED = gzip.compress(_JSON * 50, mtime=0)
MALFORMED_ANSWERS = [
    MalformedAnswer("deflate header over a plain body",
                    _sized(b"200 OK", _JSON, b"Content-Encoding: deflate"), "deflate", False),
    MalformedAnswer("gzip header over a plain body",
                    _sized(b"200 OK", _JSON, b"Content-Encoding: gzip"), "gzip", False),
    MalformedAnswer("truncated gzip body",
                    _sized(b"200 OK", _GZIPPED[:-12], b"Content-Encoding: gzip"), "gzip", False),
    MalformedAnswer("gzip body cut short of its Content-Length",
                    _sized(b"200 OK", _GZIPPED[:-12], b"Content-Encoding: gzip",
                           length=len(_GZIPPED)), "broken body", False),
    MalformedAnswer("body shorter than its Content-Length",
                    _sized(b"200 OK", _JSON, length=len(_JSON) + 100), "broken body", False),
    MalformedAnswer("bad chunk size",
                    _answer(b"200 OK", [b"Content-Type: application/json",
                                        b"Transfer-Encoding: chunked"], b"ZZ\r\nabc\r\n0\r\n\r\n"),
                    "broken body", False),
    MalformedAnswer("chunked body without its last chunk",
                    _answer(b"200 OK", [b"Content-Type: application/json",
                                        b"Transfer-Encoding: chunked"], b"5\r\n{\"a\":\r\n"),
                    "broken body", False),
    MalformedAnswer("status 999", _sized(b"999 Weird", _JSON), "status 999", True),
    MalformedAnswer("status 600 with a gzip body",
                    _sized(b"600 Odd", _GZIPPED, b"Content-Encoding: gzip"), "status 600", True),
    MalformedAnswer("no status line", b"NOT HTTP AT ALL\r\n\r\n", "no answer", True),
    MalformedAnswer("connection closed without an answer", b"", "no answer", True),
    MalformedAnswer("header line without a colon",
                    _answer(b"200 OK", [b"Content-Type application/json"], _JSON), "no answer",
                    True),
]  # fmt: skip


@contextlib.contextmanager
def raw_upstream(answer: Callable[[bytes], bytes]) -> Iterator[str]:
    """A loopback server that reads each request's head, sends ``answer(head)`` as raw bytes
    (no HTTP library in the way) and closes the connection."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                head = b""
                while b"\r\n\r\n" not in head:
                    data = connection.recv(65536)
                    if not data:
                        break
                    head += data
                with contextlib.suppress(OSError):
                    connection.sendall(answer(head))
                    connection.shutdown(socket.SHUT_WR)
                    time.sleep(0.01)  # let the proxy read before the close

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()


#: Where the app's exceptions are logged: uvicorn's error logger (which need not propagate).
_LOGGERS = ("", "uvicorn.error")


class _Tracebacks(logging.Handler):
    """ERROR records with a traceback, of any logger (uvicorn logs the app's exceptions so)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.found: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.found.append(f"{record.name}: {record.getMessage()}")


def probe_malformed(workdir: Path, cases: list[MalformedAnswer] = MALFORMED_ANSWERS) -> list[Probe]:
    results = []
    for case in cases:
        cassette = workdir / "malformed.jsonl"
        tracebacks = _Tracebacks()
        with (
            raw_upstream(lambda _head, raw=case.raw: raw) as upstream,
            proxy_in_thread(upstream, record=cassette) as proxy,
        ):
            for logger in _LOGGERS:  # (after the server's start: uvicorn resets its loggers)
                logging.getLogger(logger).addHandler(tracebacks)
            try:
                status, body = _get(f"{proxy.base_url}/v1/rl/supported-models")
            finally:
                for logger in _LOGGERS:
                    logging.getLogger(logger).removeHandler(tracebacks)
        recorded = read_cassette(cassette)
        defects = [d for e in recorded for d in e.defects]
        problems = []
        if len(recorded) != 1 or not any(case.defect in d for d in defects):
            problems.append(f"recorded {len(recorded)} exchanges, defects {defects}")
        if case.client_gets_502 and (status != 502 or b"proxy:" not in body):
            problems.append(f"client got {status} {body[:120]!r}, not a 502 saying why")
        if not case.client_gets_502 and status == 502:
            problems.append("client got a 502 where upstream's answer could be relayed")
        if not any(case.defect in line for line in proxy.log):
            problems.append(f"no DEFECT line in the proxy's log {proxy.log}")
        if tracebacks.found:
            problems.append(f"tracebacks: {tracebacks.found}")
        results.append(Probe("malformed answers", case.name, not problems, "; ".join(problems)))
    return results


def _get(url: str) -> tuple[int | None, bytes]:
    """The status and body the client got (None: the connection broke before an answer)."""
    try:
        with httpx.stream("GET", url, timeout=10) as response:
            body = b""
            with contextlib.suppress(httpx.HTTPError):
                for chunk in response.iter_raw():
                    body += chunk
            return response.status_code, body
    except httpx.HTTPError:
        return None, b""


def gzip_bomb(expanded: int) -> bytes:
    """A gzip stream of ``expanded`` zero bytes, built in 1 MiB steps (never held expanded)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block, parts = bytes(1 << 20), []
    for _ in range(expanded >> 20):
        parts.append(packer.compress(block))
    parts.append(packer.compress(bytes(expanded & ((1 << 20) - 1))))
    parts.append(packer.flush())
    return b"".join(parts)


def probe_bomb(workdir: Path, expanded: int = 64 << 20, limit: int = 1 << 20) -> Probe:
    bomb = gzip_bomb(expanded)
    raw = _sized(b"200 OK", bomb, b"Content-Encoding: gzip")
    cassette = workdir / "bomb.jsonl"
    with (
        raw_upstream(lambda _head: raw) as upstream,
        proxy_in_thread(upstream, record=cassette, record_limit=limit) as proxy,
    ):
        status, body = _get(f"{proxy.base_url}/v1/rl/supported-models")
    recorded = read_cassette(cassette)
    problems = []
    if status != 200 or body != bomb:
        problems.append(f"client got {status}, {len(body)} of {len(bomb)} bytes")
    kept = len(recorded[0].response_body) if recorded else -1
    cuts = [d for e in recorded for d in e.defects if d.startswith("record cut")]
    if kept > limit or not cuts or str(limit) not in cuts[0]:
        problems.append(f"recorded {kept} bytes (limit {limit}); cut named: {cuts}")
    if cassette.stat().st_size > 2 * limit:  # a binary body is kept as base64 (4/3)
        problems.append(f"cassette of {cassette.stat().st_size} bytes")
    name = f"gzip of {len(bomb)} bytes expanding to {expanded} (record limit {limit})"
    return Probe("decompression bomb", name, not problems, "; ".join(problems))


@dataclasses.dataclass
class ProxyHostileReport:
    results: list[Probe]
    duration_s: float

    @property
    def ok(self) -> bool:
        return all(r.held for r in self.results)

    def by_family(self) -> dict[str, tuple[int, int]]:
        """family -> (probes tried, probes held)"""
        counts: dict[str, tuple[int, int]] = {}
        for r in self.results:
            tried, held = counts.get(r.family, (0, 0))
            counts[r.family] = (tried + 1, held + r.held)
        return counts

    def lines(self) -> list[str]:
        families = "; ".join(f"{f} {h}/{t}" for f, (t, h) in self.by_family().items())
        held = sum(r.held for r in self.results)
        return [
            f"### Proxy against hostile upstreams and careless clients ({self.duration_s:.0f} s)",
            "",
            f"- probes held: {held} of {len(self.results)} ({families})",
            *[
                f"  - FAIL {r.family} / {r.name}: {r.detail}"[:600]
                for r in self.results
                if not r.held
            ],
            f"- **{'PASS' if self.ok else 'FAIL'}**",
        ]


def run_proxy_hostile(bomb_bytes: int = 64 << 20) -> ProxyHostileReport:
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        results = probe_malformed(workdir)
        results.append(probe_bomb(workdir, expanded=bomb_bytes))
        results += probe_key_encodings(workdir)
        results += probe_presigned(workdir)
    return ProxyHostileReport(results, time.monotonic() - started)


def proof(args: object = None) -> tuple[bool, list[str]]:
    """The long run's entry (``python -m reliability proxy-hostile``): a 256 MiB bomb."""
    report = run_proxy_hostile(bomb_bytes=256 << 20)
    return report.ok, report.lines()
