"""A decompression limit keeps the proxy's memory bounded: a small gzip answer that expands far
beyond the record limit reaches the client whole, and is recorded cut at the limit with the cut
named (how much was kept, how many compressed bytes came). The 1 GiB figure, with the proxy's
peak memory, is measured by benchmarks/bench_proxy.py (docs/benchmarks.md)."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

from together_rl_contract_tests.proxy._body_recorder import BodyRecorder

from reliability.proxy_hostile import gzip_bomb, probe_bomb

MIB = 1 << 20


def test_a_gzip_bomb_is_relayed_whole_and_recorded_cut(tmp_path: Path) -> None:
    result = probe_bomb(tmp_path, expanded=32 * MIB, limit=MIB)
    assert result.held, result.detail


def test_the_recorder_never_decodes_past_its_limit() -> None:
    bomb = gzip_bomb(16 * MIB)
    recorder = BodyRecorder("gzip", limit=MIB)
    for start in range(0, len(bomb), 1000):
        recorder.feed(bomb[start : start + 1000])
    kept = recorder.finish()
    assert kept == bytes(MIB)
    assert recorder.wire_bytes == len(bomb)
    [cut] = recorder.defects
    assert cut.startswith("record cut") and f"{MIB} bytes (decoded)" in cut
    assert f"{len(bomb)} gzip bytes received" in cut


def test_the_recorder_decodes_both_forms_of_deflate_and_keeps_small_bodies_whole() -> None:
    body = b'{"data": []}' * 100
    raw_deflate = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    for encoding, encoded in (
        ("gzip", gzip.compress(body)),
        ("deflate", zlib.compress(body)),
        ("deflate", raw_deflate.compress(body) + raw_deflate.flush()),
        (None, body),
    ):
        recorder = BodyRecorder(encoding, limit=MIB)
        recorder.feed(encoded)
        assert recorder.finish() == body and recorder.defects == [], encoding
    plain = BodyRecorder(None, limit=10)
    plain.feed(body)
    assert plain.finish() == body[:10] and plain.defects[0].startswith("record cut")
