"""Presigned URLs: a checkpoint download made through the proxy leaves no URL that works without
the key in the cassette or the reports, while the client's download works (through the proxy's
relay) and replay serves the same file offline. Credentials are redacted wherever a URL appears;
harmless parameters stay readable."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import orjson
from together_rl_contract_tests.proxy import proxy_in_thread, read_cassette
from together_rl_contract_tests.proxy._redaction import Redactor, presigned_urls, redact_presigned
from together_rl_emulator import serve_in_thread

from reliability.proxy_secrets import probe_presigned

S3 = (
    "https://bucket.r2.example/ckpt/model.safetensors?X-Amz-Algorithm=AWS4-HMAC-SHA256"
    "&X-Amz-Credential=AKIDSECRET%2F20261207%2Fauto%2Fs3%2Faws4_request&X-Amz-Date=20261207T000000Z"
    "&X-Amz-Expires=3600&X-Amz-Signature=0123abcdsignature"
)


def test_a_checkpoint_download_keeps_no_working_url_and_replays_offline(tmp_path: Path) -> None:
    results = probe_presigned(tmp_path)
    assert [(r.name, r.detail) for r in results if not r.held] == []
    assert len(results) == 4


def test_credentials_are_redacted_wherever_a_url_appears() -> None:
    secrets = ("AKIDSECRET", "0123abcdsignature", "tok-123456")
    forms = {
        "JSON body": f'{{"url": "{S3}"}}',
        "JSON, escaped by Go": '{"url": "' + S3.replace("&", "\\u0026").replace("/", "\\/") + '"}',
        "Location header": "http://h/_emulator/checkpoints/c/model.safetensors?token=tok-123456",
        "nested in a query": "next=https%3A%2F%2Fh%2Fx%3Fa%3D1%26token%3Dtok-123456%26b%3D2",
    }
    for name, text in forms.items():
        redacted = redact_presigned(text.encode()).decode()
        assert not [s for s in secrets if s in redacted], (name, redacted)
        assert "<redacted>" in redacted, name
    kept = redact_presigned(S3.encode()).decode()
    assert "X-Amz-Date=20261207T000000Z" in kept and "X-Amz-Expires=3600" in kept
    assert Redactor(set()).text("?token=tok-123456") == "?token=<redacted>"


def test_presigned_urls_are_found_escaped_and_redacted() -> None:
    escaped = ('{"a": "' + S3.replace("&", "\\u0026").replace("/", "\\/") + '"}').encode()
    [(_, _, url)] = presigned_urls(escaped)
    assert url == S3
    redacted = redact_presigned(S3.encode())
    [(_, _, again)] = presigned_urls(b'"' + redacted + b'"')  # replay finds redacted URLs too
    assert again == redacted.decode()
    assert presigned_urls(b'{"url": "https://example.com/a?b=c"}') == []


async def _presigning_upstream(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Hands out presigned URLs to itself (a JSON body, a redirect) and serves the file there,
    echoing the credentials it was sent."""
    if scope["type"] != "http":
        return
    root = f"http://{dict(scope['headers'])[b'host'].decode()}"
    url = f"{root}/files/model.safetensors?X-Amz-Date=1&token=tok-secret-0123"
    headers = [(b"content-type", b"application/json")]
    if scope["path"] == "/v1/rl/checkpoints/ck-1/download":
        body = orjson.dumps({"data": [{"filename": "model.safetensors", "size": 4, "url": url}]})
    elif scope["path"] == "/redirect":
        headers, body = [(b"location", url.encode())], b""
        await send({"type": "http.response.start", "status": 302, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        return
    else:
        seen = {n.decode(): v.decode() for n, v in scope["headers"]}
        body = orjson.dumps({"query": scope["query_string"].decode(), "headers": seen})
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def test_the_relay_sends_no_credentials_and_rewrites_redirects(tmp_path: Path) -> None:
    upstream = serve_in_thread(_presigning_upstream)
    auth = {"Authorization": "Bearer sk-relay-test-0123456789"}
    try:
        with (
            proxy_in_thread(upstream.base_url, record=tmp_path / "run.jsonl") as proxy,
            httpx.Client(base_url=proxy.base_url, headers=auth) as client,
        ):
            [file] = client.get("/v1/rl/checkpoints/ck-1/download").json()["data"]
            assert file["url"].startswith(f"{proxy.base_url}/_proxy/presigned/")
            assert file["url"].endswith("/model.safetensors")
            fetched = client.get(file["url"]).json()  # the client even sends its key
            redirect = client.get("/redirect")
            unknown = client.get("/_proxy/presigned/no-such-handle/x")
    finally:
        upstream.stop()
    assert fetched["query"] == "X-Amz-Date=1&token=tok-secret-0123"  # the real URL, reached
    assert "authorization" not in fetched["headers"]
    assert redirect.headers["location"].startswith(f"{proxy.base_url}/_proxy/presigned/")
    assert unknown.status_code == 404 and "no such relayed URL" in unknown.text
    cassette = (tmp_path / "run.jsonl").read_text()
    assert "tok-secret-0123" not in cassette and "sk-relay-test" not in cassette
    relayed = [e for e in read_cassette(tmp_path / "run.jsonl") if e.url is not None]
    assert [e.url for e in relayed] == [
        f"{upstream.base_url}/files/model.safetensors?X-Amz-Date=1&token=<redacted>"
    ]
    assert proxy.monitor.relayed == 1
