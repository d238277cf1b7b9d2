"""Hostile input: the whole corpus (>= 200 crafted bad requests), in-process and over loopback
(with raw sockets for malformed HTTP). In-process the emulator answers every case 4xx with a JSON
error body; over loopback each case is answered by the layer it names (the emulator, with a JSON
4xx; uvicorn's h11 for malformed HTTP, plain-text 400; either for oversized headers). The server
stays alive and its state unchanged."""

from __future__ import annotations

from collections.abc import Callable

from emulator_harness import LiveEmulator
from together_rl_emulator import EmulatorApp

from reliability._hostile_cases import (
    EMULATOR,
    HOSTILE_KEY,
    MAX_BODY_MB,
    NO_ANSWER,
    PARSER,
    SERVED,
    HostileCase,
    build_corpus,
)
from reliability.hostile import judge, run_in_process, run_loopback


def test_corpus_is_large_and_covers_every_category() -> None:
    corpus = build_corpus()
    assert len(corpus) >= 200
    assert {c.category for c in corpus} >= {
        "malformed JSON", "truncated JSON", "wrong types", "NaN/Infinity", "huge numbers",
        "deep nesting", "body over limit", "hostile ids", "oversized headers", "content types",
        "bad methods",
    }  # fmt: skip
    # Everything an HTTP client can send must be answered by the emulator itself, except
    # oversized headers (uvicorn may refuse them first).
    assert {c.answered_by for c in corpus if c.category != "oversized headers"} == {(EMULATOR,)}


def test_judge_refuses_the_wrong_layer_and_non_json_answers() -> None:
    """The oracle can fail: a plain-text 400 is not the emulator's answer, a 200 is not a
    refusal, a closed connection is not an answer unless the case expects none."""
    case = HostileCase("x", "test")
    json_400 = b'{"error": {"message": "bad", "type": "invalid_request_error"}}'
    assert judge(case, 400, "application/json", json_400).ok
    assert not judge(case, 400, "text/plain", b"Invalid HTTP request received.").ok
    assert not judge(case, 200, "application/json", b"{}").ok
    assert not judge(case, 500, "application/json", json_400).ok
    assert not judge(case, None, "", b"").ok
    assert not judge(case, 400, "application/json", json_400, ["emulator: internal error"]).ok
    parser_case = HostileCase("y", "test", raw=b"GARBAGE", answered_by=(PARSER,))
    assert judge(parser_case, 400, "text/plain", b"Invalid HTTP request received.").ok
    assert not judge(parser_case, 400, "application/json", json_400).ok
    assert not judge(parser_case, 400, "text/plain", b"x", over_http=False).ok
    assert judge(HostileCase("z", "t", answered_by=(NO_ANSWER,)), None, "", b"").ok
    assert not judge(HostileCase("s", "t", answered_by=(SERVED,)), 500, "", b"").ok


def _app(factory: Callable[..., EmulatorApp]) -> EmulatorApp:
    return factory(api_keys=[HOSTILE_KEY], max_body_mb=MAX_BODY_MB)


def test_hostile_corpus_in_process(emulator_app_factory: Callable[..., EmulatorApp]) -> None:
    report, outcomes = run_in_process(_app(emulator_app_factory))
    assert report.cases >= 200
    assert report.failures == []
    assert {o.layer for o in outcomes} == {EMULATOR}
    assert all(400 <= (o.status or 0) < 500 for o in outcomes)
    assert report.state_unchanged, report.state_diff
    assert report.alive


def test_hostile_corpus_over_loopback(live_emulator_factory: Callable[..., LiveEmulator]) -> None:
    live = live_emulator_factory(api_keys=[HOSTILE_KEY], max_body_mb=MAX_BODY_MB)
    report, outcomes = run_loopback(live.base_url)
    assert report.cases >= 200
    assert report.failures == []
    assert report.state_unchanged, report.state_diff
    assert report.alive
    assert all(o.layer in o.case.answered_by for o in outcomes)
