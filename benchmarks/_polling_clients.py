"""The realistic traces' operations and the clients that run them: each client runs a trace on
a session and returns when it held each result (`Runner`). Shared by `bench_polling_traces`,
`bench_polling_emulator` and `bench_polling_simulated`."""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
from together_rl import Client

from benchmarks._report import ROOT

__all__ = [
    "KEY",
    "LOSS",
    "MODEL",
    "TRACES",
    "TS_DRIVER",
    "Op",
    "Runner",
    "Trace",
    "fixed_interval",
    "run_loop",
    "run_official_sdk",
    "run_official_sdk_futures",
    "run_typescript",
    "run_wrapper",
    "traces",
    "wire_body",
]

MODEL = "Qwen/Qwen3-8B"
KEY = "bench-key"
VOCAB = 1000  # token ids drawn below it (any id of the model's vocabulary would do)
LOSS = {"type": "LOSS_TYPE_CROSS_ENTROPY"}
TS_DRIVER = ROOT / "client_kit" / "ports" / "typescript" / "dist" / "driver.js"
OPS = "/v1/rl/training-sessions/{}/operations/{}"


@dataclass(frozen=True)
class Op:
    kind: str  # "sample", "forward-backward" or "optim-step"
    size: int = 0  # sample: completions' max_tokens; forward-backward: tokens per sequence
    count: int = 0  # sample: prompts (8 completions each); forward-backward: sequences
    forward_only: bool = False  # a forward-backward without its backward

    def describe(self) -> str:
        if self.kind == "sample":
            return f"sample {self.count}x8x{self.size}"
        if self.kind == "forward-backward":
            return f"fb {self.count}x{self.size}" + (" forward only" if self.forward_only else "")
        return self.kind


@dataclass(frozen=True)
class Trace:
    name: str
    steps: tuple[tuple[Op, ...], ...]
    ahead: bool = False  # submit step k+1 before collecting step k

    def ops(self) -> list[Op]:
        return [op for step in self.steps for op in step]


def traces(quick: bool) -> list[Trace]:
    rng = random.Random(7)
    steps = 4 if quick else 8
    grpo = tuple(
        (
            Op("sample", 32, 8),
            Op("forward-backward", rng.randrange(64, 257, 16), 64),
            Op("optim-step"),
        )
        for _ in range(steps)
    )
    ahead = tuple(
        (Op("forward-backward", rng.randrange(64, 257, 16), 64), Op("optim-step"))
        for _ in range(steps)
    )
    mix = tuple((Op("forward-backward", rng.randrange(32, 321, 8), 64),) for _ in range(3 * steps))
    return [
        Trace("GRPO loop (sample, forward-backward, optim-step)", grpo),
        Trace("submit-ahead loop (forward-backward, optim-step)", ahead, ahead=True),
        Trace("forward-backward durations varying 10x", mix),
    ]


TRACES = traces(quick=False)


def _tokens(rng: random.Random, n: int) -> list[int]:
    return [rng.randrange(1, VOCAB) for _ in range(n)]


def fb_samples(op: Op, rng: random.Random) -> list[dict[str, Any]]:
    return [
        {
            "model_input": {"chunks": [{"encoded_text": {"tokens": _tokens(rng, op.size)}}]},
            "loss_fn_inputs": {
                "target_tokens": {"data": _tokens(rng, op.size), "dtype": "int64"},
                "weights": {"data": [1.0] * op.size, "dtype": "float32"},
            },
        }
        for _ in range(op.count)
    ]


def prompts(op: Op, rng: random.Random) -> list[list[int]]:
    return [_tokens(rng, 16) for _ in range(op.count)]


def wire_body(op: Op, rng: random.Random) -> dict[str, Any]:
    """The body of ``op`` as every client sends it."""
    if op.kind == "sample":
        return {
            "model_inputs": [
                {"chunks": [{"encoded_text": {"tokens": p}}]} for p in prompts(op, rng)
            ],
            "num_samples": 8,
            "sampling_params": {"max_tokens": op.size, "seed": 1},
        }
    if op.kind == "forward-backward":
        flags = {"forward_only": True} if op.forward_only else {}
        return {"samples": fb_samples(op, rng), "loss": LOSS, **flags}
    return {"adam_params": {"learning_rate": 1e-4}}


# --- the clients: each runs a trace on a session and returns when it held each result ------


Runner = Callable[[str, str, Trace], list[float]]


def run_wrapper(base_url: str, session_id: str, trace: Trace) -> list[float]:
    rng = random.Random(1)
    with Client(KEY, base_url) as client:
        session = client.session(session_id)

        def submit(op: Op) -> Any:
            body = wire_body(op, rng)
            if op.kind == "sample":
                return session.sample(
                    [m["chunks"][0]["encoded_text"]["tokens"] for m in body["model_inputs"]],
                    num_samples=8,
                    sampling_params=body["sampling_params"],
                )
            if op.kind == "forward-backward":
                return session.forward_backward(body["samples"], LOSS, forward_only=op.forward_only)
            return session.optim_step(**body["adam_params"])

        return run_loop(trace, submit, lambda future: future.result())


def run_official_sdk(base_url: str, session_id: str, trace: Trace) -> list[float]:
    """The SDK's Trainer and Generator, blocking calls at their default interval (0.5 s)."""
    from together.post_training import SessionClient

    rng, held = random.Random(1), []
    with contextlib.redirect_stdout(open(os.devnull, "w")):
        handle = SessionClient.attach(session_id=session_id, api_key=KEY, base_url=base_url)
    try:
        for op in trace.ops():
            body = wire_body(op, rng)
            if op.kind == "sample":
                handle.generator.sample_batch(
                    body["model_inputs"], num_samples=8, sampling_params=body["sampling_params"]
                )
            elif op.kind == "forward-backward":
                handle.trainer.forward_backward(samples=body["samples"], loss=LOSS)
            else:
                handle.trainer.optim_step(adam_params=body["adam_params"])
            held.append(time.time())
    finally:
        handle.detach()
    return held


def run_official_sdk_futures(base_url: str, session_id: str, trace: Trace) -> list[float]:
    """The SDK's way to submit ahead: its Tinker layer's TrainingClient
    (`together.post_training.tinker`), whose calls return once submitted, with a future that
    polls at the SDK's default interval (0.5 s) once collected."""
    import together.post_training.tinker as tinker
    from together.post_training import SessionClient

    rng = random.Random(1)
    with contextlib.redirect_stdout(open(os.devnull, "w")):
        handle = SessionClient.attach(session_id=session_id, api_key=KEY, base_url=base_url)
    training = tinker.TrainingClient(handle)

    def submit(op: Op) -> Any:
        body = wire_body(op, rng)
        if op.kind == "optim-step":
            return training.optim_step(tinker.types.AdamParams(**body["adam_params"]))
        assert op.kind == "forward-backward", op  # the ahead traces have no other kind
        data = [
            tinker.types.Datum(
                model_input=tinker.types.ModelInput.from_ints(
                    sample["model_input"]["chunks"][0]["encoded_text"]["tokens"]
                ),
                loss_fn_inputs={k: v["data"] for k, v in sample["loss_fn_inputs"].items()},
            )
            for sample in body["samples"]
        ]
        return training.forward_backward(data, "cross_entropy")

    try:
        return run_loop(trace, submit, lambda future: future.result())
    finally:
        handle.detach()


def run_loop(
    trace: Trace,
    submit: Callable[[Op], Any],
    collect: Callable[[Any], object],
    clock: Callable[[], float] = time.time,
) -> list[float]:
    """``trace`` run as its loop does, collecting in submission order: each operation
    submitted, then collected; submitting ahead (``trace.ahead``), the next step's operations
    submitted before the step's are collected. When (``clock``) each result was held."""
    held: list[float] = []
    if not trace.ahead:
        for op in trace.ops():
            collect(submit(op))
            held.append(clock())
        return held
    flight = [submit(op) for op in trace.steps[0]]
    for k in range(len(trace.steps)):
        later = [submit(op) for op in trace.steps[k + 1]] if k + 1 < len(trace.steps) else []
        for future in flight:
            collect(future)
            held.append(clock())
        flight = later
    return held


def run_typescript(base_url: str, session_id: str, trace: Trace) -> list[float]:
    """The TypeScript port through its kit driver (forward-backward only), one call at a time."""
    rng, held = random.Random(1), []
    env = {**os.environ, "TOGETHER_BASE_URL": base_url, "TOGETHER_API_KEY": KEY}
    with subprocess.Popen(
        ["node", str(TS_DRIVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
    ) as node:
        assert node.stdin is not None and node.stdout is not None
        node.stdout.readline()  # its declaration
        for n, op in enumerate(trace.ops()):
            request = {"id": n, "op": "forwardBackward", "path": {"session_id": session_id}}
            node.stdin.write(json.dumps({**request, "body": wire_body(op, rng)}) + "\n")
            node.stdin.flush()
            answer = json.loads(node.stdout.readline())
            held.append(time.time())
            assert answer["ok"], answer
        node.stdin.close()
    return held


def fixed_interval(interval: float) -> Runner:
    """A plain poller: POST, then a GET every ``interval`` until COMPLETED (submitting ahead
    as the trace says, collecting in submission order)."""

    def run(base_url: str, session_id: str, trace: Trace) -> list[float]:
        rng = random.Random(1)
        headers = {"Authorization": f"Bearer {KEY}"}
        with httpx.Client(base_url=base_url, headers=headers) as http:

            def submit(op: Op) -> tuple[str, str]:
                path = OPS.format(session_id, op.kind)
                key = {"Idempotency-Key": str(uuid.uuid4())}
                posted = http.post(path, json=wire_body(op, rng), headers=key)
                posted.raise_for_status()
                return path, posted.json()["id"]

            def collect(operation: tuple[str, str]) -> None:
                path, operation_id = operation
                while True:
                    time.sleep(interval)
                    status = http.get(f"{path}/{operation_id}").json()["status"]
                    if status == "TRAINING_OPERATION_STATUS_COMPLETED":
                        return
                    assert status != "TRAINING_OPERATION_STATUS_FAILED", status

            return run_loop(trace, submit, collect)

    return run
