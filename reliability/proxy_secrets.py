"""The proxy's secret-keeping families of ``reliability.proxy_hostile``: the key in every encoding
a careless client may send it, echoed back by the upstream, and presigned URLs of a checkpoint
download; the oracle decodes what the proxy kept, never reusing the proxy's own search.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus, unquote, unquote_plus

import httpx
import orjson
from together_rl_contract_tests.proxy import (
    proxy_in_thread,
    replay_in_thread,
    write_junit,
    write_markdown,
)
from together_rl_emulator import serve_emulator, serve_in_thread

from reliability._probes import Probe

__all__ = ["key_leaks", "probe_key_encodings", "probe_presigned"]

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


def probe_key_encodings(workdir: Path) -> list[Probe]:
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
            results.append(Probe("key encodings", name, not leaks, "; ".join(leaks)))
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


def probe_presigned(workdir: Path) -> list[Probe]:
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
        Probe("presigned URLs", "the client's download works through the proxy",
                    fetched == expected and bool(expected), f"files {sorted(fetched)}"),
        Probe("presigned URLs", "no token in the cassette or the reports", not kept,
                    "; ".join(kept)),
        Probe("presigned URLs", "no URL in the cassette works without the key",
                    not working, "; ".join(working)),
    ]  # fmt: skip
    with (
        replay_in_thread(cassette, log=lambda _line: None) as (replay_url, _),  # emulator gone
        httpx.Client(base_url=replay_url, timeout=30) as client,
    ):
        offline = {
            f["filename"]: httpx.get(f["url"]).content for f in _files(client, checkpoint_id)
        }
    results.append(Probe("presigned URLs", "replay serves the download offline",
                               offline == expected, f"files {sorted(offline)}"))  # fmt: skip
    return results
