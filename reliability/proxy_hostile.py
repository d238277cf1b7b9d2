"""The proxy against a hostile upstream and a careless client: every exchange is kept, no secret is.

Families of probes, each run through a real proxy on loopback (``proxy_in_thread``) that records
a cassette and writes its reports:

- **malformed answers**: a raw-socket upstream sends answers that break HTTP (bad compression,
  truncated bodies, bad chunking, a status outside 100-599, no status line, a closed
  connection); each must be recorded with its defect named, and the client must get upstream's
  answer or a 502 saying why, with no traceback in the log;
- **decompression bomb**: a small gzip answer that expands far beyond the record limit is relayed
  whole to the client and recorded cut at the limit, the cut named;
- **key encodings**: the key sent raw, percent-encoded, JSON-escaped, in Basic auth and in a query
  parameter, echoed back by the upstream; no form of it may reach the cassette or the reports;
- **presigned URLs**: a checkpoint download through the proxy (emulator upstream); the cassette
  and reports hold no URL that works without the key, and replay serves the file offline.

``run_proxy_hostile()`` runs them all and says which held.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import gzip
import json
import logging
import re
import socket
import tempfile
import threading
import time
import uuid
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus, unquote, unquote_plus

import httpx
import orjson
from together_rl_contract_tests.proxy import proxy_in_thread, read_cassette, replay_in_thread
from together_rl_contract_tests.proxy._report import write_junit, write_markdown
from together_rl_emulator import serve_emulator, serve_in_thread

__all__ = [
    "MALFORMED_ANSWERS",
    "MalformedAnswer",
    "ProbeResult",
    "ProxyHostileReport",
    "gzip_bomb",
    "key_leaks",
    "probe_bomb",
    "probe_key_encodings",
    "probe_malformed",
    "probe_presigned",
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


@dataclasses.dataclass
class ProbeResult:
    family: str
    name: str
    held: bool
    detail: str = ""


class _Tracebacks(logging.Handler):
    """ERROR records with a traceback, of any logger (uvicorn logs the app's exceptions so)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.found: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.found.append(f"{record.name}: {record.getMessage()}")


def probe_malformed(
    workdir: Path, cases: list[MalformedAnswer] = MALFORMED_ANSWERS
) -> list[ProbeResult]:
    results = []
    for case in cases:
        cassette = workdir / "malformed.jsonl"
        tracebacks = _Tracebacks()
        logging.getLogger().addHandler(tracebacks)
        try:
            with (
                raw_upstream(lambda _head, raw=case.raw: raw) as upstream,
                proxy_in_thread(upstream, record=cassette) as proxy,
            ):
                status, body = _get(f"{proxy.base_url}/v1/rl/supported-models")
        finally:
            logging.getLogger().removeHandler(tracebacks)
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
        results.append(
            ProbeResult("malformed answers", case.name, not problems, "; ".join(problems))
        )
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


def probe_bomb(workdir: Path, expanded: int = 64 << 20, limit: int = 1 << 20) -> ProbeResult:
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
    return ProbeResult("decompression bomb", name, not problems, "; ".join(problems))


# ----------------------------------------------------------------------------- key encodings

_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{12,}={0,2}")
_JSON_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


def key_leaks(text: str, key: str) -> list[str]:
    """The decodings of ``text`` in which ``key`` can be read (none: it did not leak). Judged by
    decoding the text (and the strings of its JSON lines, as a cassette's bodies are), never by
    how the proxy searches for the key."""
    found = _leaks_in(text, key)
    leaves: list[str] = []
    for line in text.splitlines():
        with contextlib.suppress(ValueError):
            _strings(orjson.loads(line), leaves)
    found += [f"JSON string, {how}" for how in _leaks_in("\n".join(leaves), key)]
    return found


def _strings(value: Any, into: list[str]) -> None:
    if isinstance(value, str):
        into.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _strings(item, into)
    elif isinstance(value, list):
        for item in value:
            _strings(item, into)


def _leaks_in(text: str, key: str) -> list[str]:
    unescaped = _JSON_ESCAPE.sub(lambda m: chr(int(m[1], 16)), text).replace("\\/", "/")
    readings = {
        "as is": text,
        "percent-decoded": unquote(text),
        "percent-decoded (+ as space)": unquote_plus(text),
        "percent-decoded twice": unquote(unquote(text)),
        "JSON-unescaped": unescaped,
        "JSON-unescaped, percent-decoded": unquote(unescaped),
    }
    found = [name for name, reading in readings.items() if key in reading]
    for run in _BASE64_RUN.findall(text):
        for start in range(4):
            piece = run[start:]
            piece = piece[: len(piece) // 4 * 4]
            for decode in (base64.b64decode, base64.urlsafe_b64decode):
                with contextlib.suppress(ValueError):
                    if key.encode() in decode(piece):
                        found.append(f"base64 {run[:16]}...")
    return found


async def _echo(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An upstream that answers with everything it received (as a careless API echoes input)."""
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    payload = orjson.dumps({
        "query": scope["query_string"].decode(), "body": body.decode("latin-1"),
        "headers": [[n.decode(), v.decode()] for n, v in scope["headers"]],
    })  # fmt: skip
    headers = [(b"content-type", b"application/json"),
               (b"x-echo-query", scope["query_string"])]  # fmt: skip
    await send({"type": "http.response.start", "status": 400, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


def _lower_hex(encoded: str) -> str:
    return re.sub("%[0-9A-F]{2}", lambda hexed: hexed[0].lower(), encoded)


def probe_key_encodings(workdir: Path) -> list[ProbeResult]:
    key = f"adv+Proxy/Key={uuid.uuid4().hex}=="
    basic = base64.b64encode(f"user:{key}".encode()).decode()
    sends: dict[str, dict[str, Any]] = {
        "bearer header, percent-encoded query": {
            "headers": {"Authorization": f"Bearer {key}"},
            "url": f"?api_key={quote(key, safe='')}"},
        "lower-case percent-encoding, + for space": {
            "headers": {"X-Api-Key": key}, "url": f"?api_key={_lower_hex(quote_plus(key))}&x=1"},
        "JSON-escaped body": {
            "headers": {"Authorization": f"Bearer {key}"},
            "content": json.dumps({"note": key}).replace("/", "\\/").encode()},
        "\\u-escaped body": {
            "headers": {"Authorization": f"Bearer {key}"},
            "content": json.dumps({"note": key}, ensure_ascii=False).replace(
                "+", "\\u002b").replace("/", "\\u002F").encode()},
        "basic auth, its base64 echoed": {
            "headers": {"Authorization": f"Basic {basic}", "X-Trace": basic},
            "content": json.dumps({"auth": basic}).encode()},
        "key in a query parameter only": {"headers": {}, "url": f"?api_key={quote(key)}"},
        "key in a custom header value": {
            "headers": {"Authorization": f"Bearer {key}", "X-Note": f"key={quote(key)}"}},
        "key in the path": {
            "headers": {"Authorization": f"Bearer {key}"}, "path": f"/{quote(key, safe='')}"},
    }  # fmt: skip
    results = []
    upstream = serve_in_thread(_echo)
    try:
        for name, request in sends.items():
            cassette = workdir / "keys.jsonl"
            with proxy_in_thread(upstream.base_url, record=cassette) as proxy:
                url = f"{proxy.base_url}/v1/rl/model-resources{request.get('path', '')}"
                httpx.post(url + request.get("url", ""), headers=request["headers"],
                           content=request.get("content", b"{}"), timeout=10)  # fmt: skip
            write_markdown(proxy.monitor, workdir / "proxy.md", "echo")
            write_junit(proxy.monitor, workdir / "proxy.junit.xml")
            leaks = [
                f"{file}: {reading}"
                for file in ("keys.jsonl", "proxy.md", "proxy.junit.xml")
                for reading in key_leaks((workdir / file).read_text(), key)
            ] + [f"log: {line}" for line in proxy.log if key_leaks(line, key)]
            results.append(ProbeResult("key encodings", name, not leaks, "; ".join(leaks)))
    finally:
        upstream.stop()
    return results


# ----------------------------------------------------------------------------- presigned URLs

_MODEL = "emulator/tiny-1k"
_VARIANT = "CHECKPOINT_VARIANT_MERGED"


def _inference_checkpoint(client: httpx.Client) -> str:
    """Train nothing, save an inference checkpoint; its id."""
    resources = client.post("/v1/rl/model-resources", json={"base_model": _MODEL}).json()
    session = client.post("/v1/rl/training-sessions",
                          json={"model_resources_id": resources["id"]}).json()  # fmt: skip
    operations = f"/v1/rl/training-sessions/{session['id']}/operations/inference-checkpoint"
    operation = client.post(operations, headers={"Idempotency-Key": uuid.uuid4().hex}).json()
    for _ in range(500):
        operation = client.get(f"{operations}/{operation['id']}").json()
        if operation["status"].endswith(("COMPLETED", "FAILED")):
            break
        time.sleep(0.01)
    return str(operation["output"]["checkpoint"]["id"])


def _files(client: httpx.Client, checkpoint_id: str) -> list[dict[str, Any]]:
    answer = client.get(
        f"/v1/rl/checkpoints/{checkpoint_id}/download", params={"variant": _VARIANT}
    )
    files: list[dict[str, Any]] = answer.json()["data"]
    return files


def probe_presigned(workdir: Path) -> list[ProbeResult]:
    """A checkpoint downloaded through the proxy: no working URL kept, the file served offline."""
    key = f"sk-presigned-{uuid.uuid4().hex}"
    cassette = workdir / "presigned.jsonl"
    emulator = serve_emulator(api_keys=[key], seed=0)
    auth = {"Authorization": f"Bearer {key}"}
    try:
        with httpx.Client(base_url=emulator.base_url, headers=auth, timeout=30) as direct:
            checkpoint_id = _inference_checkpoint(direct)
            real = {f["filename"]: f["url"] for f in _files(direct, checkpoint_id)}
            expected = {name: httpx.get(url).content for name, url in real.items()}
        with proxy_in_thread(emulator.base_url, record=cassette) as proxy:
            with httpx.Client(base_url=proxy.base_url, headers=auth, timeout=30) as client:
                through = {f["filename"]: f["url"] for f in _files(client, checkpoint_id)}
            fetched = {name: httpx.get(url).content for name, url in through.items()}
        write_markdown(proxy.monitor, workdir / "proxy.md", emulator.base_url)
        write_junit(proxy.monitor, workdir / "proxy.junit.xml")
        texts = {
            n: (workdir / n).read_text() for n in ("presigned.jsonl", "proxy.md", "proxy.junit.xml")
        }
        tokens = {url.rsplit("token=", 1)[-1] for url in real.values()}
        kept = [f"{n} holds a token" for n, t in texts.items() for token in tokens if token in t]
        urls = re.findall(r"https?://[^\s\"'<>\\]+", texts["presigned.jsonl"])
        working = [u for u in urls if "checkpoints" in u and httpx.get(u).status_code == 200]
    finally:
        emulator.stop()
    results = [
        ProbeResult("presigned URLs", "the client's download works through the proxy",
                    fetched == expected and bool(expected), f"files {sorted(fetched)}"),
        ProbeResult("presigned URLs", "no token in the cassette or the reports", not kept,
                    "; ".join(kept)),
        ProbeResult("presigned URLs", "no URL in the cassette works without the key",
                    not working, "; ".join(working)),
    ]  # fmt: skip
    with (
        replay_in_thread(cassette, log=lambda _line: None) as (replay_url, _),  # emulator gone
        httpx.Client(base_url=replay_url, timeout=30) as client,
    ):
        offline = {
            f["filename"]: httpx.get(f["url"]).content for f in _files(client, checkpoint_id)
        }
    results.append(ProbeResult("presigned URLs", "replay serves the download offline",
                               offline == expected, f"files {sorted(offline)}"))  # fmt: skip
    return results


@dataclasses.dataclass
class ProxyHostileReport:
    results: list[ProbeResult]
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
