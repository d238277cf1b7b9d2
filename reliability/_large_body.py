"""The worst legal body as a shared-use probe: a batch of tiny samples whose last sample is
wrong, sent over loopback while another client calls `/healthz` back to back."""

# ruff: noqa: E501  (probe names and details are data)

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Iterator

import httpx
import orjson
from together_rl_emulator import serve_emulator

from ._probes import OPS, OWNER, Probe, session_on

__all__ = ["large_body_probes", "worst_body"]


def worst_body(n_samples: int, vocab: int = 1024) -> bytes:
    """`n_samples` 4-token samples, the last one's first token outside the vocabulary."""
    sample = {"model_input": {"chunks": [{"encoded_text": {"tokens": [11, 22, 33, 44]}}]},
              "loss_fn_inputs": {"target_tokens": {"data": [22, 33, 44, 55], "dtype": "int64"},
                                 "weights": {"data": [0.0, 1.0, 1.0, 1.0], "dtype": "float32"}}}  # fmt: skip
    last = orjson.loads(orjson.dumps(sample))
    last["model_input"]["chunks"][0]["encoded_text"]["tokens"][0] = vocab * 1000
    return orjson.dumps(
        {
            "samples": [sample] * (n_samples - 1) + [last],
            "loss": {"type": "LOSS_TYPE_CROSS_ENTROPY"},
        }
    )


def large_body_probes(n_samples: int) -> Iterator[Probe]:
    """The worst legal body over loopback, while another client calls /healthz back to back."""
    raw = worst_body(n_samples)
    with serve_emulator(api_keys=[OWNER]) as server:
        c = httpx.Client(
            base_url=server.base_url, headers={"Authorization": f"Bearer {OWNER}"}, timeout=600
        )
        _, session = session_on(c)
        health: list[float] = []
        done = threading.Event()

        def probe() -> None:
            with httpx.Client(base_url=server.base_url, timeout=600) as prober:
                while not done.is_set():
                    start = time.perf_counter()
                    prober.get("/healthz")
                    health.append((time.perf_counter() - start) * 1000)
                    time.sleep(0.005)

        thread = threading.Thread(target=probe)
        thread.start()
        start = time.perf_counter()
        r = c.post(OPS.format(session, "forward-backward"), content=raw,
                   headers={"Idempotency-Key": "big", "Content-Type": "application/json"})  # fmt: skip
        seconds = time.perf_counter() - start
        done.set()
        thread.join()
    param = r.json().get("error", {}).get("param", "")
    yield Probe(
        "large body",
        f"{len(raw) / 1e6:.1f} MB of {n_samples:,} samples refused naming the last sample",
        r.status_code == 400 and param.startswith(f"samples[{n_samples - 1}]"),
        f"{r.status_code} {param} in {seconds:.2f} s",
    )
    health.sort()
    p99 = health[min(len(health) - 1, int(len(health) * 0.99))] if health else float("inf")
    yield Probe(
        "large body",
        "/healthz kept answering meanwhile",
        len(health) > 1,
        f"{len(health)} calls, p50 {statistics.median(health):.1f} ms, p99 {p99:.1f} ms, max {health[-1]:.1f} ms",
    )
