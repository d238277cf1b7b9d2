"""The proxy's promise about secrets, checked on real traffic: an API key sent in the
`Authorization` header (and the other secret headers), in a query parameter and in a body
reaches neither the cassette nor the reports, and no secret header reaches them at all, not
even by its name with a redacted value (which a search for the key's text alone would pass).
The second test plants that very bug and shows the check catches it."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from together_rl_contract_tests.proxy import _forwarding
from together_rl_contract_tests.proxy._exchange import SECRET_HEADERS
from together_rl_contract_tests.proxy._in_thread import proxy_in_thread
from together_rl_contract_tests.proxy._report import write_junit, write_markdown
from together_rl_emulator import ThreadServer, serve_emulator

KEY = f"sk-cassette-test-{uuid.uuid4().hex}"
TINY = "emulator/tiny-1k"


@pytest.fixture
def emulator() -> Iterator[ThreadServer]:
    server = serve_emulator(api_keys=[KEY], seed=0)
    yield server
    server.stop()


def _record(upstream: str, tmp_path: Path) -> dict[str, str]:
    """Real traffic through the proxy carrying the key everywhere; the cassette and reports."""
    cassette = tmp_path / "run.jsonl"
    headers = {
        "Authorization": f"Bearer {KEY}",
        "X-Api-Key": KEY,
        "Proxy-Authorization": f"Bearer {KEY}",
        "Cookie": f"session={KEY}",
    }
    with proxy_in_thread(upstream, record=cassette) as proxy:
        with httpx.Client(base_url=proxy.base_url, headers=headers, timeout=30) as client:
            models = client.get("/v1/rl/supported-models", params={"api_key": KEY})
            created = client.post("/v1/rl/model-resources", json={"base_model": TINY})
            refused = client.post("/v1/rl/model-resources", json={"base_model": KEY})
        # The emulator refuses an undeclared query parameter (400 naming `api_key`, not its value).
        assert models.status_code in (200, 400), models.text
        assert created.status_code == 200, created.text
        assert refused.status_code in (400, 404), refused.text
        assert KEY in refused.text  # the emulator echoes the body's key: scrubbed in the record
    write_markdown(proxy.monitor, tmp_path / "proxy.md", "emulator")
    write_junit(proxy.monitor, tmp_path / "proxy.junit.xml")
    texts = {name: (tmp_path / name).read_text() for name in ("proxy.md", "proxy.junit.xml")}
    texts["run.jsonl"] = cassette.read_text()
    assert texts["run.jsonl"].count("\n") == 3, texts["run.jsonl"]
    return texts


def _leaks(text: str) -> list[str]:
    """Every secret header name and every trace of the key found in ``text``."""
    lowered = text.lower()
    found = [f"header {name}" for name in sorted(SECRET_HEADERS) if name in lowered]
    found += [f"key {part}" for part in (KEY, KEY[len("sk-") :]) if part in text]
    return found


def test_no_secret_header_and_no_key_reach_the_cassette_or_the_reports(
    emulator: ThreadServer, tmp_path: Path
) -> None:
    texts = _record(emulator.base_url, tmp_path)
    assert "<redacted>" in texts["run.jsonl"]  # the query and the bodies carried the key
    assert {name: _leaks(text) for name, text in texts.items()} == {name: [] for name in texts}


def test_a_secret_header_kept_with_a_redacted_value_is_caught(
    emulator: ThreadServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bug the key-only checks miss: the header written, its value redacted."""

    def keep_redacted(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
        return [(n.lower(), "<redacted>" if n.lower() in SECRET_HEADERS else v) for n, v in headers]

    monkeypatch.setattr(_forwarding, "public_headers", keep_redacted)
    cassette = _record(emulator.base_url, tmp_path)["run.jsonl"]
    assert KEY not in cassette  # a search for the key's text passes this cassette...
    assert "header authorization" in _leaks(cassette)  # ...the check above does not
