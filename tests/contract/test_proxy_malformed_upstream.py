"""Answers that break HTTP are kept: each is recorded as an exchange with its defect named and
printed, listed in both reports, and the client gets upstream's answer as sent (cut where it was
cut) or a 502 saying why; nothing is dropped, no traceback is logged. The upstream is a raw socket
(``reliability.proxy_hostile.raw_upstream``), so the answers are exactly the broken bytes."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from together_rl_contract_tests.proxy import proxy_in_thread, read_cassette
from together_rl_contract_tests.proxy._report import write_junit, write_markdown

from reliability.proxy_hostile import (
    MALFORMED_ANSWERS,
    MalformedAnswer,
    probe_malformed,
    raw_upstream,
)


@pytest.mark.parametrize("case", MALFORMED_ANSWERS, ids=[c.name for c in MALFORMED_ANSWERS])
def test_a_malformed_answer_is_recorded_with_its_defect(
    case: MalformedAnswer, tmp_path: Path
) -> None:
    [result] = probe_malformed(tmp_path, [case])
    assert result.held, result.detail


def test_the_reports_list_each_defect(tmp_path: Path) -> None:
    status_999 = next(c for c in MALFORMED_ANSWERS if c.name == "status 999")
    with (
        raw_upstream(lambda _head: status_999.raw) as upstream,
        proxy_in_thread(upstream, record=tmp_path / "run.jsonl") as proxy,
    ):
        answer = httpx.get(f"{proxy.base_url}/v1/rl/supported-models")
    assert answer.status_code == 502
    assert "status 999, outside 100-599" in answer.json()["error"]["message"]
    [exchange] = read_cassette(tmp_path / "run.jsonl")
    assert exchange.status == 999 and exchange.defects
    write_markdown(proxy.monitor, tmp_path / "proxy.md", upstream)
    write_junit(proxy.monitor, tmp_path / "proxy.junit.xml")
    markdown = (tmp_path / "proxy.md").read_text()
    assert "- #1 `GET /v1/rl/supported-models`: status 999: not an HTTP status" in markdown
    assert "1 answers with defects" in markdown
    assert 'name="upstream answers are HTTP"' in (tmp_path / "proxy.junit.xml").read_text()
