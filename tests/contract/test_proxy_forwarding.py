"""The proxy forwards unchanged: what the upstream receives is what the client sent (hop-by-hop
headers and ``Host`` aside), and what the client receives is what the upstream answered, byte for
byte, compressed bodies included. An unreachable upstream is a 502 naming the cause."""

from __future__ import annotations

import gzip
import hashlib
from typing import Any

import httpx
import orjson
from together_rl_contract_tests._emulator_process import free_port
from together_rl_contract_tests.proxy._in_thread import proxy_in_thread
from together_rl_emulator import serve_in_thread

SECRET = "sk-forwarding-test-abcdef0123456789"
COMPRESSED = gzip.compress(b'{"data": []}', mtime=0)


async def echo(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An upstream that answers with what it received; ``/gzip`` answers a gzipped body."""
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    if scope["path"] == "/gzip":
        headers = [
            (b"content-type", b"application/json"),
            (b"content-encoding", b"gzip"),
            (b"x-upstream", b"yes"),
            (b"content-length", str(len(COMPRESSED)).encode()),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": COMPRESSED})
        return
    received = {
        "method": scope["method"],
        "path": scope["raw_path"].decode(),
        "query": scope["query_string"].decode(),
        "headers": [[n.decode(), v.decode()] for n, v in scope["headers"]],
        "body_sha256": hashlib.sha256(body).hexdigest(),
    }
    payload = orjson.dumps(received)
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json")]})  # fmt: skip
    await send({"type": "http.response.body", "body": payload})


def test_the_upstream_receives_the_request_as_sent() -> None:
    upstream = serve_in_thread(echo)
    body = b'{"samples": [1, 2, 3], "note": "caf\\u00e9"}' * 1000
    sent = {"Authorization": f"Bearer {SECRET}", "Idempotency-Key": "key-1",
            "X-Custom": "kept", "Content-Type": "application/json"}  # fmt: skip
    try:
        with proxy_in_thread(upstream.base_url) as proxy, httpx.Client() as client:
            through = client.post(
                f"{proxy.base_url}/v1/a%2Fb/x?b=2&a=1", content=body, headers=sent
            )
            direct = client.post(
                f"{upstream.base_url}/v1/a%2Fb/x?b=2&a=1", content=body, headers=sent
            )
            got = client.get(f"{proxy.base_url}/v1/plain")
    finally:
        upstream.stop()

    def seen(response: httpx.Response) -> dict[str, Any]:
        received: dict[str, Any] = response.json()
        hop = ("host", "connection")  # the connection's own, set by each client
        received["headers"] = [h for h in received["headers"] if h[0] not in hop]
        return received

    assert seen(through) == seen(direct)  # method, raw path, query, headers in order, body
    plain = seen(got)
    assert plain["method"] == "GET" and plain["body_sha256"] == hashlib.sha256(b"").hexdigest()
    assert not {"content-length", "transfer-encoding"} & {n for n, _ in plain["headers"]}
    assert all(SECRET not in line for line in proxy.log)


def test_the_client_receives_the_answer_as_sent() -> None:
    upstream = serve_in_thread(echo)
    try:
        with (
            proxy_in_thread(upstream.base_url) as proxy,
            httpx.Client() as client,
            client.stream("GET", f"{proxy.base_url}/gzip") as response,
        ):
            raw = b"".join(response.iter_raw())
    finally:
        upstream.stop()
    assert raw == COMPRESSED
    assert response.headers["content-encoding"] == "gzip"
    assert response.headers["x-upstream"] == "yes"
    assert proxy.monitor.outside_spec["GET /gzip"] == 1


def test_an_unreachable_upstream_is_a_502_naming_the_cause() -> None:
    with proxy_in_thread(f"http://127.0.0.1:{free_port()}") as proxy:
        answer = httpx.get(f"{proxy.base_url}/v1/rl/supported-models")
    assert answer.status_code == 502
    assert "the upstream did not answer" in answer.json()["error"]["message"]
