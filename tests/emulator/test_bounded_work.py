"""Bounded work per request: a large body of many small samples is decoded and digested in short
steps (no single call over the whole body holds the GIL while other requests wait), the array
decoder declines bodies of many short lists (it would build them one Python call at a time),
and large bodies are checked one at a time. Speed itself is measured in
benchmarks/bench_worst_body.py (docs/benchmarks.md), not here."""

from __future__ import annotations

import gc
import threading
import time
from typing import Any

import orjson
import pytest
from together_rl_emulator.checking import _chunked_decode, _requests
from together_rl_emulator.checking._chunked_decode import (
    BATCH,
    CHUNKED_DECODE_MIN_BYTES,
    decode_in_chunks,
)
from together_rl_emulator.checking._fast_decode import decode_body, decode_fast
from together_rl_emulator.state import _idempotency
from together_rl_emulator.state._idempotency import body_digest, sorted_json
from together_rl_emulator.web import _handlers
from together_rl_emulator.web._http import json_object


def short_samples_body(n: int) -> bytes:
    sample = {
        "model_input": {"chunks": [{"encoded_text": {"tokens": [11, 22, 33, 44]}}]},
        "loss_fn_inputs": {
            "target_tokens": {"data": [22, 33, 44, 55], "dtype": "int64"},
            "weights": {"data": [0.0, 1.0, 0.5, 1e-3], "dtype": "float32"},
        },
    }
    return orjson.dumps({"samples": [sample] * n, "loss": {"type": "LOSS_TYPE_CROSS_ENTROPY"}})


BIG = short_samples_body(CHUNKED_DECODE_MIN_BYTES // 150)


def test_the_array_decoder_declines_many_short_lists() -> None:
    assert decode_fast(BIG) is None


def test_a_large_body_is_decoded_in_short_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    sizes: list[int] = []
    loads = orjson.loads

    def recording_loads(text: bytes) -> Any:
        sizes.append(len(text))
        return loads(text)

    monkeypatch.setattr(_chunked_decode.orjson, "loads", recording_loads)
    decoded = decode_body(BIG, json_object, fast=True)
    monkeypatch.undo()
    assert decoded.value == orjson.loads(BIG)
    assert len(sizes) > 1 and max(sizes) < len(BIG) / 4


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a": 1, "a": 2, ' + b'"pad": "' + b"x" * CHUNKED_DECODE_MIN_BYTES + b'"}',
        b"\xef\xbb\xbf" + BIG,
        b"[" + BIG + b"]",
        BIG[:-5],
    ],
    ids=["repeated key", "byte order mark", "not an object", "truncated"],
)
def test_the_chunked_decoder_declines_what_it_is_not_sure_of(raw: bytes) -> None:
    assert decode_in_chunks(raw) is None


def test_the_chunked_decoder_reads_numbers_and_strings_as_orjson_does() -> None:
    items = [{"f": 3600.0, "i": 3600, "big": 2**64 - 1, "neg": -0.0, "s": 'é\u2028\\"'}] * (
        BATCH + 7
    )
    raw = orjson.dumps({"items": items, "pad": "x" * CHUNKED_DECODE_MIN_BYTES, "n": None})
    decoded = decode_in_chunks(raw)
    assert decoded == orjson.loads(raw)
    assert decoded is not None and type(decoded["items"][0]["f"]) is float


def test_the_digest_is_made_in_short_calls_with_the_same_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    body = orjson.loads(BIG)
    assert sorted_json(body) == orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    expected = body_digest(body)
    sizes: list[int] = []
    dumps = orjson.dumps

    def recording_dumps(value: Any, option: int | None = None) -> bytes:
        out = dumps(value, option=option)
        sizes.append(len(out))
        return out

    monkeypatch.setattr(_idempotency.orjson, "dumps", recording_dumps)
    assert body_digest(body) == expected
    monkeypatch.undo()
    assert max(sizes) < len(BIG) / 4


def test_large_bodies_are_checked_one_at_a_time() -> None:
    running, overlaps = [0], [0]
    lock = threading.Lock()

    def check() -> bytes:
        with lock:
            running[0] += 1
            overlaps[0] = max(overlaps[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return b"{}"

    threads = [
        threading.Thread(target=_handlers.one_large_body_at_a_time, args=(check,)) for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert overlaps[0] == 1


def test_a_body_of_short_lists_is_schema_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The skeleton pass (for bodies whose long lists the scan vouches for) is skipped when a
    token or tensor list is short: the full schema validation runs anyway."""
    calls: list[str] = []
    real = _requests.valid_apart_from_bulk_items

    def recording(schema_name: str, body: object) -> bool:
        calls.append(schema_name)
        return real(schema_name, body)

    monkeypatch.setattr(_requests, "valid_apart_from_bulk_items", recording)
    body = orjson.loads(short_samples_body(10))
    _requests.validate_forward_backward(body, 1024)
    assert calls == []


def test_the_collector_is_paused_while_a_large_body_is_checked() -> None:
    """Full collections triggered by the millions of containers a batch decodes into would hold
    the GIL for tenths of a second each; the collector is paused for the check, then resumed."""
    seen: list[bool] = []
    assert gc.isenabled()
    _handlers.one_large_body_at_a_time(lambda: seen.append(gc.isenabled()) or b"{}")
    assert seen == [False] and gc.isenabled()
