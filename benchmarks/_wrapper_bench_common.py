"""What the wrapper benchmark's tables share: the emulator subprocess and its test-only
resources, the small forward-backward batch, and the names of the routes counted."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from together_rl import Sample, losses
from together_rl.wire import build_forward_backward, encode_body

from benchmarks._emulator_process import emulator_process
from benchmarks._report import (
    digest,
)

__all__ = [
    "FB_GET",
    "FB_POST",
    "KEY",
    "LOSS",
    "PIPE_D_MS",
    "POLL_WARMUP",
    "SMALL_SHAPE",
    "build_forward_backward",
    "config",
    "emulator",
    "emulator_get",
    "entry",
    "finished_at",
    "gets_posts",
    "request_counts",
    "routes_between",
    "small_batch",
    "small_payload_facts",
    "stats",
]

KEY = "bench-key"
FB_GET = "GET /v1/rl/training-sessions/{session_id}/operations/forward-backward/{operation_id}"
FB_POST = "POST /v1/rl/training-sessions/{session_id}/operations/forward-backward"
LOSS = losses.GRPO(clip_low_threshold=0.8, clip_high_threshold=1.2)
SMALL_SHAPE = (4, 8)  # samples x tokens of the polling and pipelining operations
PIPE_D_MS = 200
# Operations before the measured ones of the polling table: a session's first ones (the
# schedule learns the duration from them), so it measures the steady state.
POLL_WARMUP = 4


def config(quick: bool) -> dict[str, Any]:
    """What a run does: the only difference between the full run and --quick is repetitions."""
    return {
        "poll_ops": {20: 5, 200: 3, 1300: 2} if quick else {20: 15, 200: 10, 1300: 5},
        "big_repeat": 3 if quick else 9,
        "pipe_steps": 4 if quick else 12,
    }


def entry(fn: Any) -> str:
    """The dotted name of a measured callable: its code path identifier."""
    return f"{fn.__module__}.{fn.__qualname__}"


@contextlib.contextmanager
def emulator(op_latency_ms: int) -> Iterator[str]:
    """`together-rl-emulator --op-latency-ms D` on loopback: its base URL."""
    launcher = [str(Path(sys.executable).parent / "together-rl-emulator")]
    args = ("--host", "127.0.0.1", "--api-key", KEY, "--op-latency-ms", str(op_latency_ms))
    with emulator_process(*args, launcher=launcher) as (base_url, _):
        yield base_url


def emulator_get(base_url: str, path: str) -> dict[str, Any]:
    """A test-only `/_emulator/...` resource of the bench key."""
    response = httpx.get(base_url + path, headers={"Authorization": f"Bearer {KEY}"})
    response.raise_for_status()
    data: dict[str, Any] = response.json()
    return data


def stats(base_url: str) -> dict[str, Any]:
    return emulator_get(base_url, "/_emulator/stats")


def request_counts(base_url: str) -> dict[str, int]:
    return {route: int(n) for route, n in stats(base_url)["requests"].items()}


def routes_between(before: dict[str, int], after: dict[str, int]) -> list[str]:
    """The routes requested between two `request_counts` (a code path fact; counts vary)."""
    return sorted(route for route, n in after.items() if n > before.get(route, 0))


def small_batch() -> list[Sample]:
    n, length = SMALL_SHAPE
    half = length // 2
    return [
        Sample.from_completion(
            list(range(1, half + 1)),
            list(range(half + 1, length + 1)),
            logprobs=[-1.0] * half,
            advantages=0.5,
        )
        for _ in range(n)
    ]


def small_payload_facts(batch: list[Sample]) -> dict[str, Any]:
    body = encode_body(build_forward_backward(batch, LOSS))
    return {"shape": "{} x {}".format(*SMALL_SHAPE), "bytes": len(body), "sha256": digest(body)}


def finished_at(base_url: str, operation_id: str) -> float:
    """When the emulator committed the operation (Unix seconds, its clock: this machine's)."""
    return float(emulator_get(base_url, f"/_emulator/operations/{operation_id}")["finished_at"])


def gets_posts(base_url: str) -> tuple[int, int]:
    requests = stats(base_url)["requests"]
    return int(requests.get(FB_GET, 0)), int(requests.get(FB_POST, 0))
