"""The wrapper benchmark's pipelining table: steps per second with submit-ahead against strictly
sequential operations, at D = 200 ms."""

from __future__ import annotations

import time
from typing import Any

from together_rl import Client, Session

from benchmarks._report import (
    Table,
)
from benchmarks._wrapper_bench_common import (
    KEY,
    LOSS,
    PIPE_D_MS,
    POLL_WARMUP,
    SMALL_SHAPE,
    emulator,
    entry,
    request_counts,
    routes_between,
    small_batch,
    small_payload_facts,
)

__all__ = ["pipelining", "pipelining_table"]


def pipelining(steps: int) -> dict[str, Any]:
    with emulator(PIPE_D_MS) as base_url:
        client = Client(KEY, base_url)
        resources = client.model_resources.create("emulator/tiny-1k")
        session = client.sessions.create(model_resources_id=resources.id)
        batch = small_batch()
        for _ in range(POLL_WARMUP):
            session.forward_backward(batch, LOSS).result()
        before = request_counts(base_url)
        start = time.perf_counter()
        for _ in range(steps):
            session.forward_backward(batch, LOSS).result()
        sequential = steps / (time.perf_counter() - start)
        start = time.perf_counter()
        pending = session.forward_backward(batch, LOSS)
        for _ in range(steps - 1):
            following = session.forward_backward(batch, LOSS)  # submit ahead
            pending.result()
            pending = following
        pending.result()
        ahead = steps / (time.perf_counter() - start)
        routes = routes_between(before, request_counts(base_url))
        client.close()
    return {"sequential": sequential, "ahead": ahead, "routes": routes}


def pipelining_table(pipe: dict[str, Any], steps: int) -> Table:
    n, length = SMALL_SHAPE
    return Table(
        key="wrapper.pipelining",
        title=f"Pipelining at D = {PIPE_D_MS} ms (wrapper)",
        payload=f"GRPO forward-backward, {n} samples x {length} tokens, {steps} steps per loop "
        f"after {POLL_WARMUP} warm-up operations; emulator `--op-latency-ms {PIPE_D_MS}` on "
        "127.0.0.1; the two loops one after the other on the same session.",
        columns=["loop", "steps/s"],
        rows=[
            [
                "sequential (`forward_backward(...).result()` each step)",
                f"{pipe['sequential']:.2f}",
            ],
            [
                "submit-ahead (next step submitted before reading the result)",
                f"{pipe['ahead']:.2f}",
            ],
        ],
        facts={
            "payload": small_payload_facts(small_batch()),
            "d_ms": PIPE_D_MS,
            "steps": steps,
            "entry": entry(Session.forward_backward),
            "routes": pipe["routes"],
        },
        notes=[
            "The emulator runs a session's operations one at a time, so submit-ahead can only "
            "hide the client's round trips (POST, the GET that collects), not D itself."
        ],
    )
