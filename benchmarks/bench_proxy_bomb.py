"""Proxy benchmark: its memory against a decompression bomb (run by ``benchmarks.bench_proxy``).

    .venv/bin/python -m benchmarks.bench_proxy [--quick] [--no-write]

A raw-socket upstream in this process answers ``GET /v1/rl/supported-models`` with a gzip body
that expands to 1 GiB of zeros (256 MiB with ``--quick``); a recording proxy
(``python -m together_rl_contract_tests proxy --record``, default record limit) runs as a
subprocess in front of it, and a client reads the whole answer through it, undecoded. Measured:
the proxy's resident memory after start and its peak (``VmHWM`` of ``/proc/<pid>/status``), the
time to relay the answer, and what the cassette kept (the body's size and the defect named).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from together_rl_contract_tests.proxy import DEFAULT_RECORD_LIMIT, BodyRecorder, read_cassette

from benchmarks._report import ROOT, RunInfo, Table, digest
from reliability.proxy_hostile import gzip_bomb, raw_upstream

__all__ = ["KEY", "bomb_facts", "bomb_table"]

KEY = "proxy.bomb"
MIB = 1 << 20


def expanded_bytes(quick: bool) -> int:
    return (256 if quick else 1024) * MIB


def _kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/{pid}/status")


@contextlib.contextmanager
def _proxy(upstream: str, record: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    command = [sys.executable, "-m", "together_rl_contract_tests", "proxy", "--upstream", upstream,
               "--port", "0", "--reports", str(record.parent), "--record", str(record)]  # fmt: skip
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert process.stdout is not None
    ready = process.stdout.readline()
    if "listening on" not in ready:
        process.kill()
        raise RuntimeError(f"the proxy did not start: {ready!r}")
    try:
        yield process, ready.rsplit(" ", 1)[1].strip()
    finally:
        process.terminate()
        process.communicate(timeout=120)


def run(quick: bool) -> dict[str, Any]:
    """One pass: the figures (memory, time) and the facts (payload, what was recorded)."""
    bomb = gzip_bomb(expanded_bytes(quick))
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
    answer = head + b"Content-Length: %d\r\n\r\n" % len(bomb) + bomb
    with tempfile.TemporaryDirectory() as tmp, raw_upstream(lambda _head: answer) as upstream:
        cassette = Path(tmp) / "bomb.jsonl"
        with _proxy(upstream, cassette) as (process, url):
            rss_start = _kib(process.pid, "VmRSS")
            started = time.perf_counter()
            received = 0
            with httpx.stream("GET", f"{url}/v1/rl/supported-models", timeout=600) as response:
                for chunk in response.iter_raw():
                    received += len(chunk)
            relay_s = time.perf_counter() - started
            time.sleep(1.0)  # the worker records the exchange after the answer is sent
            peak = _kib(process.pid, "VmHWM")
        [exchange] = read_cassette(cassette)
        line_bytes = cassette.stat().st_size
    return {
        "figures": {
            "rss_start_kib": rss_start,
            "rss_peak_kib": peak,
            "relay_s": relay_s,
            "cassette_bytes": line_bytes,
        },
        "facts": {
            "quick": quick,
            "payload": {
                "gzip_bytes": len(bomb),
                "gzip_sha256": digest(bomb),
                "expanded_bytes": expanded_bytes(quick),
            },
            "client_received_bytes": received,
            "record_limit_bytes": DEFAULT_RECORD_LIMIT,
            "recorded_body_bytes": len(exchange.response_body),
            "defects": exchange.defects,
            "entry": f"{BodyRecorder.__module__}.{BodyRecorder.__qualname__}.feed",
        },
    }


def bomb_facts(quick: bool) -> dict[str, Any]:
    facts: dict[str, Any] = run(quick)["facts"]
    return facts


def bomb_table(quick: bool) -> tuple[Table, RunInfo]:
    info = RunInfo(".venv/bin/python -m benchmarks.bench_proxy" + (" --quick" if quick else ""))
    result = run(quick)
    info.finish()
    figures, facts = result["figures"], result["facts"]
    payload = facts["payload"]
    rows = [
        ["gzip answer on the wire", f"{payload['gzip_bytes'] / MIB:.2f} MiB"],
        ["expanded", f"{payload['expanded_bytes'] / MIB:.0f} MiB"],
        [
            "relayed to the client (undecoded)",
            f"{facts['client_received_bytes'] / MIB:.2f} MiB, in {figures['relay_s']:.1f} s",
        ],
        ["proxy resident memory after start", f"{figures['rss_start_kib'] / 1024:.0f} MiB"],
        ["proxy peak resident memory (VmHWM)", f"**{figures['rss_peak_kib'] / 1024:.0f} MiB**"],
        [
            "body kept in the cassette",
            f"{facts['recorded_body_bytes'] / MIB:.0f} MiB "
            f"(record limit {facts['record_limit_bytes'] / MIB:.0f} MiB)",
        ],
        ["cassette file", f"{figures['cassette_bytes'] / MIB:.0f} MiB"],
        ["defect recorded", "; ".join(f"`{d}`" for d in facts["defects"])],
    ]
    table = Table(
        key=KEY,
        title="Proxy against a decompression bomb",
        payload=f"a gzip answer of {payload['gzip_bytes']:,} bytes expanding to "
        f"{payload['expanded_bytes'] / MIB:.0f} MiB of zeros, sent by a raw-socket upstream in "
        "the benchmark's process to `python -m together_rl_contract_tests proxy --record` (a "
        "subprocess, default `--max-record-mb`), read whole through it by an httpx client "
        "without decoding.",
        columns=["", "value"],
        rows=rows,
        facts=facts,
        notes=[
            "The proxy decodes a compressed body as it streams, never past the record limit, so "
            "its memory does not grow with the expanded size; the client gets every byte. The "
            "target: under 200 MiB for a 1 GiB expansion."
        ],
    )
    return table, info
