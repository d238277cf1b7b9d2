"""Presigned URLs: a checkpoint download made through the proxy leaves no URL that works without
the key in the cassette or the reports, while the client's download works (through the proxy's
relay) and replay serves the same file offline. Credentials are redacted wherever a URL appears;
harmless parameters stay readable."""

from __future__ import annotations

from pathlib import Path

from together_rl_contract_tests.proxy._redaction import Redactor, presigned_urls, redact_presigned

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
