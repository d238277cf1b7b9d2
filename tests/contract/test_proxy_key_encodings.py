"""The key in every encoding a client might use (raw, percent-encoded in either hex case or
twice, ``+`` for a space, JSON-escaped with ``\\/`` or ``\\u00XX`` mixed, base64 in Basic auth, in
headers, query strings, paths and bodies, echoed back by the upstream) reaches neither the
cassette, nor the reports, nor the proxy's log. The oracle decodes what was kept; it does not
reuse the proxy's own search, and it is shown to catch each encoding."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
from together_rl_contract_tests.proxy._redaction import Redactor

from reliability.proxy_secrets import key_leaks, probe_key_encodings

KEY = "adv+Proxy/Key=0123456789abcdef=="


def test_no_encoding_of_the_key_is_kept(tmp_path: Path) -> None:
    results = probe_key_encodings(tmp_path)
    assert len(results) >= 8
    assert [(r.name, r.detail) for r in results if not r.held] == []


@pytest.mark.parametrize(
    "form",
    [
        KEY,
        quote(KEY, safe=""),
        re.sub("%[0-9A-F]{2}", lambda hexed: hexed[0].lower(), quote(KEY, safe="")),
        quote_plus(KEY),
        quote(quote(KEY, safe=""), safe=""),
        json.dumps(KEY).replace("/", "\\/"),
        KEY.replace("+", "\\u002b").replace("/", "\\u002F"),
        base64.b64encode(f"user:{KEY}".encode()).decode(),
        base64.b64encode(f"xy{KEY}".encode()).decode(),
    ],
)
def test_each_form_is_redacted_and_the_oracle_sees_it(form: str) -> None:
    text = f'{{"echo": "prefix {form} suffix"}}'
    assert key_leaks(text, KEY)  # the oracle can fail: it reads the key in this form
    redactor = Redactor.for_request([("Authorization", f"Bearer {KEY}")], "")
    redacted = redactor.text(text)
    assert key_leaks(redacted, KEY) == [], redacted
    assert "<redacted>" in redacted


def test_credentials_are_taken_from_basic_auth_cookies_and_query_parameters() -> None:
    basic = base64.b64encode(f"someone:{KEY}".encode()).decode()
    for headers, query in (
        ([("Authorization", f"Basic {basic}")], ""),
        ([("Cookie", f"session={KEY}; theme=dark")], ""),
        ([], f"api_key={quote(KEY, safe='')}"),
        ([("X-Api-Key", KEY)], ""),
    ):
        redacted = Redactor.for_request(headers, query).text(f"body {KEY} and {quote(KEY)}")
        assert KEY not in redacted and quote(KEY) not in redacted, (headers, query, redacted)
