"""The worst legal body: how long the emulator takes to refuse a batch of tiny samples whose last
sample is wrong, its memory, and how `/healthz` answers meanwhile.

    .venv/bin/python -m benchmarks.bench_worst_body [--quick] [--no-write]

A forward-backward body of short samples (4 tokens each, cross-entropy) is the costliest body per
byte to check: every sample is a few small JSON objects and lists. The last sample's first token
is outside the vocabulary, so the whole body is read and checked before the 400. Sizes: 29 MB
(150,000 samples) and, without `--quick`, the default 64 MB limit (a body just under it). The
emulator runs as a subprocess (`python -m together_rl_emulator`, its peak memory is its own
`VmHWM`); one client thread sends the body while another calls `GET /healthz` back to back
(each call timed). Writes its section of docs/benchmarks.md between the worst-body markers.
"""

# ruff: noqa: E501  (table lines)

from __future__ import annotations

import os
import platform
import re
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

import httpx
import orjson

from benchmarks._report import bench_arguments, publish

__all__ = ["main", "worst_body"]

KEY = "bench-key"
FB = "/v1/rl/training-sessions/{}/operations/forward-backward"
LIMIT_MB = 64
BYTES_PER_SAMPLE = 200  # of `worst_body`'s samples, compact JSON


def worst_body(n_samples: int, vocab: int = 1024) -> bytes:
    """`n_samples` 4-token cross-entropy samples, the last one's first token outside `vocab`."""
    sample = {
        "model_input": {"chunks": [{"encoded_text": {"tokens": [11, 22, 33, 44]}}]},
        "loss_fn_inputs": {
            "target_tokens": {"data": [22, 33, 44, 55], "dtype": "int64"},
            "weights": {"data": [0.0, 1.0, 1.0, 1.0], "dtype": "float32"},
        },
    }
    last = orjson.loads(orjson.dumps(sample))
    last["model_input"]["chunks"][0]["encoded_text"]["tokens"][0] = vocab * 1000
    body = {
        "samples": [sample] * (n_samples - 1) + [last],
        "loss": {"type": "LOSS_TYPE_CROSS_ENTROPY"},
    }
    return orjson.dumps(body)


def _peak_rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        found = re.search(r"VmHWM:\s+(\d+) kB", status.read())
    return int(found.group(1)) / 1024 if found else float("nan")


def _start() -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "together_rl_emulator", "--port", "0", "--api-key", KEY],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    for line in process.stdout:
        if found := re.search(r"listening on (http://\S+)", line):
            return process, found.group(1)
    raise RuntimeError("the emulator exited before listening")


def measure(n_samples: int) -> dict[str, Any]:
    """One run on a fresh emulator: the refusal's time, the health checks meanwhile, memory."""
    raw = worst_body(n_samples)
    process, base = _start()
    try:
        client = httpx.Client(
            base_url=base, headers={"Authorization": f"Bearer {KEY}"}, timeout=600
        )
        resources = client.post("/v1/rl/model-resources", json={"base_model": "emulator/tiny-1k"})
        session = client.post(
            "/v1/rl/training-sessions", json={"model_resources_id": resources.json()["id"]}
        ).json()["id"]
        rss_before = _peak_rss_mib(process.pid)
        health: list[float] = []
        done = threading.Event()

        def probe() -> None:
            with httpx.Client(base_url=base, timeout=600) as prober:
                while not done.is_set():
                    start = time.perf_counter()
                    prober.get("/healthz")
                    health.append((time.perf_counter() - start) * 1000)
                    time.sleep(0.005)

        prober = threading.Thread(target=probe)
        prober.start()
        time.sleep(0.2)
        start = time.perf_counter()
        answer = client.post(
            FB.format(session), content=raw,
            headers={"Idempotency-Key": "worst", "Content-Type": "application/json"},
        )  # fmt: skip
        seconds = time.perf_counter() - start
        done.set()
        prober.join()
        error = answer.json()["error"]
        assert answer.status_code == 400 and error["param"].startswith(f"samples[{n_samples - 1}]")
        health.sort()
        return {
            "mb": len(raw) / 1e6,
            "samples": n_samples,
            "seconds": seconds,
            "s_per_64mb": seconds
            * LIMIT_MB
            * 1024
            * 1024
            / len(raw),  # per 64 MiB, the default limit
            "health_calls": len(health),
            "health_p50": statistics.median(health),
            "health_p99": health[min(len(health) - 1, int(len(health) * 0.99))],
            "health_max": health[-1],
            "rss_before": rss_before,
            "rss_peak": _peak_rss_mib(process.pid),
        }
    finally:
        process.terminate()
        process.wait(timeout=30)


def main(argv: list[str] | None = None) -> int:
    args = bench_arguments(__doc__).parse_args(argv)
    sizes = (
        [150_000] if args.quick else [150_000, (LIMIT_MB * 1024 * 1024 - 4096) // BYTES_PER_SAMPLE]
    )
    load_start = os.getloadavg()[0]
    rows = [measure(n) for n in sizes]
    load_end = os.getloadavg()[0]
    lines = [
        "| body | samples | refused after (s) | per 64 MiB (s) | /healthz calls | /healthz p50 (ms) | p99 (ms) | max (ms) | emulator peak RSS (MiB; idle) |",
        "|---|---|---|---|---|---|---|---|---|",
    ] + [
        f"| {r['mb']:.1f} MB | {r['samples']:,} | {r['seconds']:.2f} | {r['s_per_64mb']:.2f} | "
        f"{r['health_calls']} | {r['health_p50']:.1f} | {r['health_p99']:.1f} | {r['health_max']:.1f} | "
        f"{r['rss_peak']:.0f} ({r['rss_before']:.0f}) |"
        for r in rows
    ]
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    section = "\n".join([
        f"Measured {when} on {platform.machine()} ({os.cpu_count()} cores, 1-minute load average "
        f"{load_start:.2f} at the start, {load_end:.2f} at the end), Python {platform.python_version()}, "
        f"by `.venv/bin/python -m benchmarks.bench_worst_body{' --quick' if args.quick else ''}`.",
        "",
        *lines,
    ])  # fmt: skip
    return publish("worst-body", section, args.no_write)


if __name__ == "__main__":
    sys.exit(main())
