"""The proxy's adversarial families, as ``python -m reliability proxy-hostile`` runs them (with a
smaller bomb): malformed answers, a decompression bomb, the key in every encoding, presigned URLs.
Every probe holds, and a proxy that stops redacting, or that raises, is caught."""

from __future__ import annotations

from pathlib import Path

import pytest
from together_rl_contract_tests.proxy import _forwarding
from together_rl_contract_tests.proxy._redaction import Redactor

from reliability.proxy_hostile import MALFORMED_ANSWERS, probe_malformed, run_proxy_hostile
from reliability.proxy_secrets import probe_key_encodings


def test_every_family_holds() -> None:
    report = run_proxy_hostile(bomb_bytes=8 << 20)
    assert report.by_family() == {
        "malformed answers": (len(MALFORMED_ANSWERS), len(MALFORMED_ANSWERS)),
        "decompression bomb": (1, 1),
        "key encodings": (8, 8),
        "presigned URLs": (4, 4),
    }, [f"{r.name}: {r.detail}" for r in report.results if not r.held]
    assert report.ok and report.lines()[-1] == "- **PASS**"


def test_a_proxy_that_stops_redacting_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Redactor, "bytes", lambda self, data: data)
    results = probe_key_encodings(tmp_path)
    assert not any(r.held for r in results)


def test_a_proxy_that_raises_is_caught_with_its_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def raise_while_forwarding(self: object) -> None:
        raise RuntimeError("planted")

    monkeypatch.setattr(_forwarding._Answer, "__init__", raise_while_forwarding)
    [result] = probe_malformed(tmp_path, MALFORMED_ANSWERS[:1])
    assert not result.held
    assert "tracebacks: ['uvicorn.error: Exception in ASGI application" in result.detail
