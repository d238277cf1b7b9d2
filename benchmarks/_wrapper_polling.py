"""The wrapper benchmark's polling table: the wrapper's and the official SDK Trainer's time from
an operation's completion to its result, and GETs per operation, at several durations D."""

from __future__ import annotations

import contextlib
import os
import statistics
import time
from typing import Any

import orjson
from together_rl import Client, Session

from benchmarks._report import (
    Table,
    versions,
)
from benchmarks._wrapper_bench_common import (
    FB_GET,
    KEY,
    LOSS,
    POLL_WARMUP,
    SMALL_SHAPE,
    emulator,
    entry,
    request_counts,
    routes_between,
    small_batch,
    small_payload_facts,
)

__all__ = ["polling", "polling_facts", "polling_table"]


def polling(d_ms: int, ops: int) -> dict[str, Any]:
    """The wrapper's and the SDK Trainer's operations at D, interleaved one for one on the same
    emulator (each on its own session), after their warm-up operations."""
    from together.post_training import SessionClient

    d = d_ms / 1000.0
    with emulator(d_ms) as base_url:
        client = Client(KEY, base_url)
        # LoRA resources: they run both sessions at once (a full-weight one runs one).
        resources = client.model_resources.create("emulator/tiny-1k", lora_enabled=True)
        session = client.sessions.create(model_resources_id=resources.id)
        with contextlib.redirect_stdout(open(os.devnull, "w")):
            sdk = SessionClient.create(
                model_resources_id=resources.id, api_key=KEY, base_url=base_url
            )
        batch = small_batch()
        wire = [
            orjson.loads(orjson.dumps(s.to_wire(), option=orjson.OPT_SERIALIZE_NUMPY))
            for s in batch
        ]
        steps = {
            "wrapper": lambda: session.forward_backward(batch, LOSS).result(),
            "sdk": lambda: sdk.trainer.forward_backward(samples=wire, loss=LOSS.to_wire()),
        }
        for _ in range(POLL_WARMUP):
            for step in steps.values():
                step()
        overheads: dict[str, list[float]] = {name: [] for name in steps}
        gets: dict[str, int] = dict.fromkeys(steps, 0)
        routes: dict[str, set[str]] = {name: set() for name in steps}
        for _ in range(ops):
            for name, step in steps.items():
                before = request_counts(base_url)
                start = time.perf_counter()
                step()
                overheads[name].append(time.perf_counter() - start - d)
                after = request_counts(base_url)
                gets[name] += after.get(FB_GET, 0) - before.get(FB_GET, 0)
                routes[name].update(routes_between(before, after))
        with contextlib.redirect_stdout(open(os.devnull, "w")):
            sdk.stop()
        client.close()
    return {
        "d": d_ms,
        "wrapper_ms": 1000 * statistics.median(overheads["wrapper"]),
        "wrapper_gets": gets["wrapper"] / ops,
        "wrapper_routes": sorted(routes["wrapper"]),
        "sdk_ms": 1000 * statistics.median(overheads["sdk"]),
        "sdk_gets": gets["sdk"] / ops,
        "sdk_routes": sorted(routes["sdk"]),
    }


def polling_facts(rows: list[dict[str, Any]], ops: dict[int, int]) -> dict[str, Any]:
    from together.post_training.clients.trainer import Trainer

    return {
        "payload": small_payload_facts(small_batch()),
        "loss": LOSS.to_wire(),
        "d_ms": sorted(ops),
        "ops_per_d": {str(d): n for d, n in sorted(ops.items())},
        "warmup_ops": POLL_WARMUP,
        "wrapper": {"entry": entry(Session.forward_backward), "routes": rows[0]["wrapper_routes"]},
        "sdk": {
            "entry": entry(Trainer.forward_backward),
            "together": versions().get("together"),
            "routes": rows[0]["sdk_routes"],
        },
    }


def polling_table(poll: list[dict[str, Any]], ops: dict[int, int]) -> Table:
    rows = [
        [
            str(r["d"]),
            f"{r['wrapper_ms']:.1f}",
            f"{r['wrapper_gets']:.2f}",
            f"{r['sdk_ms']:.1f}",
            f"{r['sdk_gets']:.2f}",
        ]
        for r in poll
    ]
    n, length = SMALL_SHAPE
    return Table(
        key="wrapper.polling",
        title="Polling: wrapper vs the official SDK's Trainer (operations of D ms)",
        payload=f"GRPO forward-backward, {n} samples x {length} tokens, sequential calls; "
        f"{POLL_WARMUP} warm-up operations, then "
        + ", ".join(f"{k} at D = {d} ms" for d, k in ops.items())
        + ". Emulator: `together-rl-emulator --op-latency-ms D` as a uvicorn subprocess on "
        "127.0.0.1, one per D; the wrapper's and the SDK's operations interleaved one for one "
        "on the same emulator, each client on its own session.",
        columns=[
            "D (ms)",
            "wrapper overhead (ms)",
            "wrapper GETs/op",
            "SDK Trainer overhead (ms)",
            "SDK GETs/op",
        ],
        rows=rows,
        facts=polling_facts(poll, ops),
        notes=[
            "Overhead = median of (call duration − D): POST, emulator compute and the wait "
            "between completion and the GET that sees it. GETs per operation from "
            "`/_emulator/stats`."
        ],
    )


# --------------------------------------------------------------------------- 2. large batches
