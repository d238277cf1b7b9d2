"""Polling on realistic traces: every client side by side against the realistic emulator.

    .venv/bin/python -m benchmarks.bench_polling_traces [--quick] [--no-write] [--per-op]
        [--repeat N]

`together-rl-emulator --timing realistic` on loopback (operations take their GPU-model time on
Qwen/Qwen3-8B), three traces (a GRPO loop, a loop that submits ahead, a mix in which the
forward-backward durations vary 10x), each run by each client on a fresh session (and a fresh
client), one client after the other: this project's wrapper, the official SDK
(together==3.1.1, its default 0.5 s interval, as its users call it: its Trainer and Generator,
whose calls block; in the loop that submits ahead its Tinker layer's TrainingClient, whose
calls return futures), the TypeScript port (its forward-backward only, one call at a time: the
port has no other operation), and a fixed-interval poller
(plain httpx) at the interval that spends the wrapper's GETs and at 10 ms. Per client: wall
time per step, GETs per operation (the emulator's request counts), and lateness: from the
emulator's COMPLETED (`finished_at` of `/_emulator/sessions/{id}/operations`, the same clock)
to the client holding the result, p50 / p95 / max, and the p95 from the 5th operation over the
bound max(10 ms, 5 % of the operation's duration); then the wrapper alone runs each trace
`REPEATS` times more, and the goals say in how many of those it met the 5th-operation goal
(one run is a draw from a wide spread). Writes its section of docs/benchmarks.md and
docs/polling_traces.png (lateness against operation duration, per client). `--per-op` runs
the wrapper alone and prints each operation's duration, queue wait and lateness (where a trace's
p95 comes from), writing nothing. `--repeat N` runs the wrapper alone N times on each trace
(one emulator) and prints the p95 from the 5th operation over the bound of every run, their
median and the GETs per operation, writing nothing: one run of a trace varies a lot, so a
change to the poller is judged on the spread of several, before and after. Both
(`--per-op --repeat N`): each operation's lateness over the bound in every run, and in how
many runs it was over.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from together_rl import Client

from benchmarks._emulator_process import emulator_process
from benchmarks._report import ROOT, RunInfo, Table, bench_arguments, digest, publish

__all__ = [
    "FIRST_COUNTED",
    "KEY",
    "REPEATS",
    "TRACES",
    "Op",
    "Run",
    "Runner",
    "Trace",
    "bound",
    "checked_facts",
    "fixed_interval",
    "from_each_kinds_5th",
    "main",
    "measure",
    "per_operation_misses",
    "per_operation_rows",
    "percentile",
    "print_per_operation_repeats",
    "print_repeats",
    "repeat_summary",
    "repeated_runs",
    "require_plotting",
    "run_loop",
    "run_official_sdk_futures",
    "run_trace",
    "run_wrapper",
    "traces",
    "wire_body",
    "within_in_repeats",
]

MODEL = "Qwen/Qwen3-8B"
KEY = "bench-key"
VOCAB = 1000  # token ids drawn below it (any id of the model's vocabulary would do)
LOSS = {"type": "LOSS_TYPE_CROSS_ENTROPY"}
TS_DRIVER = ROOT / "client_kit" / "ports" / "typescript" / "dist" / "driver.js"
PLOT = ROOT / "docs" / "polling_traces.png"
OPS = "/v1/rl/training-sessions/{}/operations/{}"
# The fixed poller at 10 ms: the floor of lateness a poller reaches by spending GETs (a GET
# every 10 ms), shown beside the clients, not one of them.
FLOOR = "fixed 10 ms (the floor)"


@dataclass(frozen=True)
class Op:
    kind: str  # "sample", "forward-backward" or "optim-step"
    size: int = 0  # sample: completions' max_tokens; forward-backward: tokens per sequence
    count: int = 0  # sample: prompts (8 completions each); forward-backward: sequences

    def describe(self) -> str:
        if self.kind == "sample":
            return f"sample {self.count}x8x{self.size}"
        if self.kind == "forward-backward":
            return f"fb {self.count}x{self.size}"
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
        return {"samples": fb_samples(op, rng), "loss": LOSS}
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
                return session.forward_backward(body["samples"], LOSS)
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


# --- measuring ------------------------------------------------------------------------------


# The traces' goal counts a trace's operations from its 5th (this index) on.
FIRST_COUNTED = 4
# After the side-by-side table, the wrapper alone runs each trace this many times more: whether
# it meets the 5th-operation goal is judged on their spread, not on one draw.
REPEATS = 6


def bound(duration: float) -> float:
    """The lateness the traces' goal allows an operation of ``duration``: max(10 ms, 5 %)."""
    return max(0.010, 0.05 * duration)


@dataclass
class Run:
    client: str
    trace: Trace
    seconds: float
    gets: int
    lateness: list[float] = field(default_factory=list)
    durations: list[float] = field(default_factory=list)  # started -> finished, server clock
    spans: list[float] = field(default_factory=list)  # submitted -> finished, server clock
    # (kind, duration / the GPU model's predicted_seconds) of each operation
    overruns: list[tuple[str, float]] = field(default_factory=list)

    def over_bound(self) -> list[float]:
        """Each operation's lateness over its bound max(10 ms, 5 % of its duration)."""
        return [late / bound(d) for late, d in zip(self.lateness, self.durations, strict=True)]

    def over_bound_from_5th(self) -> list[float]:
        return self.over_bound()[FIRST_COUNTED:]

    def over_bound_from_each_kinds_5th(self) -> list[float]:
        return from_each_kinds_5th([op.kind for op in self.trace.ops()], self.over_bound())


def from_each_kinds_5th(kinds: list[str], values: list[float]) -> list[float]:
    """The ``values`` of a trace's operations (of ``kinds``) from each kind's 5th operation on:
    the goal counted per kind, where a trace of interleaved kinds reaches its 5th operation
    while each kind is still warming up."""
    seen: dict[str, int] = {}
    counted = []
    for kind, value in zip(kinds, values, strict=True):
        seen[kind] = seen.get(kind, 0) + 1
        if seen[kind] > FIRST_COUNTED:
            counted.append(value)
    return counted


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank ``q`` quantile (nan for no values)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)] if ordered else math.nan


@contextlib.contextmanager
def realistic_emulator() -> Iterator[str]:
    launcher = [str(Path(sys.executable).parent / "together-rl-emulator")]
    args = ("--host", "127.0.0.1", "--api-key", KEY, "--timing", "realistic")
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    with emulator_process(*args, env=env, launcher=launcher) as (base_url, _):
        yield base_url


def _get_count(http: httpx.Client) -> int:
    requests = http.get("/_emulator/stats").json()["requests"]
    return sum(
        n for route, n in requests.items() if route.startswith("GET ") and "/operations/" in route
    )


def run_trace(base_url: str, client: str, runner: Runner, trace: Trace) -> Run:
    headers = {"Authorization": f"Bearer {KEY}"}
    with httpx.Client(base_url=base_url, headers=headers, timeout=60) as http:
        resources = http.post(
            "/v1/rl/model-resources",
            json={"base_model": MODEL, "lora_enabled": True,
                  "compute_config": {"num_generator_replicas": 1}},
        ).json()  # fmt: skip
        session = http.post(
            "/v1/rl/training-sessions", json={"model_resources_id": resources["id"]}
        ).json()
        gets = _get_count(http)
        started = time.perf_counter()
        held = runner(base_url, session["id"], trace)
        seconds = time.perf_counter() - started
        gets = _get_count(http) - gets
        ops = http.get(f"/_emulator/sessions/{session['id']}/operations").json()["data"]
        http.post(f"/v1/rl/model-resources/{resources['id']}/stop", params={"force": "true"})
    assert len(ops) == len(held), (client, len(ops), len(held))
    return Run(
        client,
        trace,
        seconds,
        gets,
        [h - op["finished_at"] for h, op in zip(held, ops, strict=True)],
        [op["finished_at"] - op["started_at"] for op in ops],
        [op["finished_at"] - op["submitted_at"] for op in ops],
        [
            (op["kind"], (op["finished_at"] - op["started_at"]) / op["predicted_seconds"])
            for op in ops
        ],
    )


def matching_interval(run: Run) -> float:
    """The fixed interval that spends about the wrapper's GETs on its operations (each polled
    from its submission to its COMPLETED: ceil(span / interval) GETs)."""
    low, high = 0.001, 10.0
    for _ in range(60):
        mid = math.sqrt(low * high)
        spent = sum(math.ceil(d / mid) for d in run.spans)
        low, high = (mid, high) if spent > run.gets else (low, mid)
    return high


def measure(quick: bool) -> list[Run]:
    chosen = traces(quick)
    if not TS_DRIVER.exists():  # a table without one of its clients would not say so
        raise SystemExit(
            f"{TS_DRIVER.relative_to(ROOT)} is missing: build the TypeScript port first "
            "(`make bench` does, or `npm run build` in client_kit/ports/typescript)"
        )
    runs: list[Run] = []
    with realistic_emulator() as base_url:
        for trace in chosen:
            wrapper = run_trace(base_url, "wrapper", run_wrapper, trace)
            interval = matching_interval(wrapper)
            clients: dict[str, Runner] = (
                {"official SDK TrainingClient futures": run_official_sdk_futures}
                if trace.ahead
                else {"official SDK Trainer": run_official_sdk}
            )
            if all(op.kind == "forward-backward" for op in trace.ops()) and not trace.ahead:
                clients["TypeScript port"] = run_typescript  # one blocking call at a time
            clients[f"fixed {interval * 1000:.0f} ms (the wrapper's GETs)"] = fixed_interval(
                interval
            )
            clients[FLOOR] = fixed_interval(0.010)
            runs.append(wrapper)
            for name, runner in clients.items():
                runs.append(run_trace(base_url, name, runner, trace))
    return runs


def per_operation_rows(run: Run) -> list[list[str]]:
    """One row per operation of ``run``: what it was, how long it ran against the GPU model's
    time, how long it waited in the session's queue, how late the client held it and that over
    the bound (marked when the 5th-operation goal counts it)."""
    rows = []
    for n, (op, over) in enumerate(zip(run.trace.ops(), run.over_bound(), strict=True)):
        duration, late = run.durations[n], run.lateness[n]
        rows.append(
            [
                str(n + 1),
                op.describe(),
                f"{1000 * duration:.1f}",
                f"{run.overruns[n][1]:.2f}",
                f"{1000 * (run.spans[n] - duration):.1f}",
                f"{1000 * late:.1f}",
                f"{over:.2f}" + (" *" if n >= FIRST_COUNTED and over > 1 else ""),
            ]
        )
    return rows


def print_per_operation(quick: bool) -> None:
    """The wrapper alone on each trace (a fresh client and session each), one row per
    operation: where its lateness comes from, before a change to the poller is measured
    side by side."""
    header = ["op", "what", "ms", "x GPU model", "queued ms", "late ms", "late / bound"]
    for [run] in repeated_runs(quick, 1):
        over = percentile(run.over_bound_from_5th(), 0.95)
        print(f"\n{run.trace.name}: {run.gets / len(run.lateness):.2f} GETs per op, p95 from "
              f"the 5th op over the bound {over:.2f} (* over it)")  # fmt: skip
        for row in [header, *per_operation_rows(run)]:
            print("  ".join(cell.rjust(width) for cell, width in zip(row, WIDTHS, strict=True)))


WIDTHS = (3, 18, 8, 11, 10, 8, 13)


def repeat_summary(runs: list[Run]) -> str:
    """One line for the wrapper's runs of one trace: the p95 from the 5th operation over the
    bound of each run (ascending), their median, the mean GETs per operation."""
    over = sorted(percentile(run.over_bound_from_5th(), 0.95) for run in runs)
    gets = sum(run.gets / len(run.lateness) for run in runs) / len(runs)
    middle = statistics.median(over)
    return (
        f"{runs[0].trace.name}: p95 from the 5th op over the bound, {len(runs)} runs: "
        f"{' '.join(f'{x:.2f}' for x in over)} (median {middle:.2f}); "
        f"{gets:.2f} GETs per op"
    )


def repeated_runs(quick: bool, repeats: int) -> list[list[Run]]:
    """The wrapper alone, ``repeats`` times on each trace (a fresh client and session each, the
    traces taken in turn, one emulator): each trace's runs."""
    chosen = traces(quick)
    runs: list[list[Run]] = [[] for _ in chosen]
    with realistic_emulator() as base_url:
        for _ in range(repeats):
            for trace, its_runs in zip(chosen, runs, strict=True):
                its_runs.append(run_trace(base_url, "wrapper", run_wrapper, trace))
    return runs


def print_repeats(quick: bool, repeats: int) -> None:
    """One summary line per trace of :func:`repeated_runs`."""
    for runs in repeated_runs(quick, repeats):
        print(repeat_summary(runs))


def per_operation_misses(runs: list[Run]) -> list[str]:
    """One line per operation of the runs' trace (several runs of one trace): in how many runs
    it was over the bound (marked when the 5th-operation goal counts it) and its lateness over
    the bound in each run, in run order."""
    lines, by_run = [], [run.over_bound() for run in runs]
    for n, op in enumerate(runs[0].trace.ops()):
        over = [each[n] for each in by_run]
        misses = sum(x > 1 for x in over)
        mark = " *" if n >= FIRST_COUNTED and misses else "  "
        lines.append(
            f"{n + 1:3}  {op.describe():>18}  over in {misses}/{len(runs)}{mark}  "
            + " ".join(f"{x:.2f}" for x in over)
        )
    return lines


def print_per_operation_repeats(quick: bool, repeats: int) -> None:
    """The wrapper alone, ``repeats`` times on each trace, one line per operation: which
    operations a trace's p95 comes from run after run, and which only now and then."""
    for runs in repeated_runs(quick, repeats):
        print(f"\n{repeat_summary(runs)}\nlateness over the bound per operation, run by run "
              "(* over it in an operation the 5th-operation goal counts):")  # fmt: skip
        print("\n".join(per_operation_misses(runs)))


def _row(run: Run) -> list[str]:
    ops = len(run.lateness)
    over = run.over_bound_from_5th()
    return [
        run.client,
        f"{run.seconds / len(run.trace.steps):.2f}",
        f"{run.gets / ops:.2f}",
        f"{1000 * percentile(run.lateness, 0.5):.0f}",
        f"{1000 * percentile(run.lateness, 0.95):.0f}",
        f"{1000 * max(run.lateness):.0f}",
        f"{percentile(over, 0.95):.2f}",
    ]


def within_in_repeats(runs: list[Run]) -> str:
    """How many of the wrapper's ``runs`` of one trace meet the 5th-operation goal, with the
    median and range of their p95 over the bound (one run is a draw from a wide spread), and
    how many meet it counted from each kind's 5th operation."""
    over = sorted(percentile(run.over_bound_from_5th(), 0.95) for run in runs)
    per_kind = [percentile(run.over_bound_from_each_kinds_5th(), 0.95) for run in runs]
    by_kind = (
        "no kind has 5 ops"
        if any(math.isnan(p) for p in per_kind)
        else f"{sum(p <= 1 for p in per_kind)} of {len(per_kind)}"
    )
    return (
        f"within in {sum(x <= 1 for x in over)} of {len(over)} more runs of the wrapper alone "
        f"(median {statistics.median(over):.2f}, {over[0]:.2f}-{over[-1]:.2f}; from each "
        f"kind's 5th op: {by_kind})"
    )


def goals(runs: list[Run], trace: Trace, repeats: list[Run] | None = None) -> str:
    """What the trace's runs say of the wrapper's goals, measured (met or not); ``repeats``:
    more runs of the wrapper alone on it."""
    mine = [r for r in runs if r.trace == trace]
    wrapper = next(r for r in mine if r.client == "wrapper")
    others = [r for r in mine if r is not wrapper]
    per_op = {r.client: r.gets / len(r.lateness) for r in mine}
    floor = next((r for r in mine if r.client == FLOOR), None)
    fastest = min((r for r in mine if r is not floor), key=lambda r: r.seconds)
    sdk = next((r for r in others if r.client.startswith("official SDK")), None)
    frugal = [r for r in others if per_op[r.client] <= per_op["wrapper"]]
    p95 = {r.client: percentile(r.lateness, 0.95) for r in mine}
    within = percentile(wrapper.over_bound_from_5th(), 0.95)
    checks = [
        "lowest wall time of the clients: "
        + ("yes" if fastest is wrapper else "no, " + fastest.client)
        + (
            ""
            if floor is None
            else f" ({wrapper.seconds / floor.seconds:.2f} x the floor's, at "
            f"{per_op['wrapper'] / per_op[floor.client]:.2f} x its GETs)"
        ),
        "GETs per op <= the SDK's: "
        + ("n/a" if sdk is None else "yes" if per_op["wrapper"] <= per_op[sdk.client] else "no"),
        "p95 below every client spending as few GETs: "
        + ("yes" if all(p95["wrapper"] < p95[r.client] for r in frugal) else "no")
        + f" ({', '.join(r.client for r in frugal) or 'none'})",
        f"p95 from the 5th op within the bound: {'yes' if within <= 1 else 'no'} ({within:.2f})"
        + (f"; {within_in_repeats(repeats)}" if repeats else ""),
    ]
    return f"*{trace.name}*, the wrapper's goals: " + "; ".join(checks) + "."


def overruns(runs: list[Run]) -> str:
    """How long the operations took against the GPU model's time for them, per kind: a kind
    the emulator computes for longer than the model says (on a busy CPU) varies from one
    operation to the next in a way no client can predict from the work."""
    kinds: dict[str, list[float]] = {}
    for run in runs:
        for kind, ratio in run.overruns:
            kinds.setdefault(kind, []).append(ratio)
    parts = [
        f"{kind} {min(r):.2f}-{max(r):.2f} x (median {percentile(r, 0.5):.2f})"
        for kind, r in kinds.items()
    ]
    return (
        "Operations' durations (emulator: started -> COMPLETED) over the GPU model's "
        "`predicted_seconds`, every run of this table: " + "; ".join(parts) + "."
    )


def require_plotting() -> None:
    """Refuse before measuring when the plot cannot be drawn: a table written beside an older
    plot would not say so."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise SystemExit(
            f"matplotlib is missing, so {PLOT.relative_to(ROOT)} cannot be drawn: install the "
            "`plots` extra first (`make bench` does, or `.venv/bin/python -m pip install -c "
            "requirements.lock -e '.[dev,plots]'`), or pass --no-write"
        ) from None


def plot(runs: list[Run]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 5))
    clients = sorted({r.client for r in runs}, key=lambda c: [r.client for r in runs].index(c))
    for client in clients:
        mine = [r for r in runs if r.client == client]
        xs = [d for r in mine for d in r.durations]
        ys = [max(late, 1e-4) for r in mine for late in r.lateness]
        axes.scatter(xs, ys, s=12, label=client, alpha=0.7)
    xs = sorted(d for r in runs for d in r.durations)
    axes.plot(xs, [bound(d) for d in xs], "k--", label="max(10 ms, 5 % of D)")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("operation duration D (s, emulator: started -> COMPLETED)")
    axes.set_ylabel("lateness (s, COMPLETED -> result held)")
    axes.set_title("Lateness against duration, three traces, --timing realistic (Qwen3-8B)")
    axes.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(PLOT, dpi=110)


def checked_facts(key: str, quick: bool = False) -> dict[str, Any]:
    assert key == "polling_traces.side_by_side", key
    chosen = traces(quick)
    return {
        "quick": quick,
        "model": MODEL,
        "traces": {
            t.name: {
                "ops": len(t.ops()),
                "ahead": t.ahead,
                "digest": digest(" ".join(op.describe() for op in t.ops()).encode()),
            }
            for t in chosen
        },
        "clients": {
            "wrapper": f"{run_wrapper.__module__}.{run_wrapper.__qualname__}",
            "official SDK": f"{run_official_sdk.__module__}.{run_official_sdk.__qualname__}",
            "official SDK futures": (
                f"{run_official_sdk_futures.__module__}.{run_official_sdk_futures.__qualname__}"
            ),
            "TypeScript port": str(TS_DRIVER.relative_to(ROOT)),
            "fixed interval": f"{fixed_interval.__module__}.{fixed_interval.__qualname__}",
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = bench_arguments(__doc__, quick="4 steps per trace instead of 8")
    parser.add_argument(
        "--per-op",
        action="store_true",
        help="the wrapper alone, one row per operation (print only; leaves docs alone)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        metavar="N",
        help="the wrapper alone, N runs of each trace (print only; leaves docs alone)",
    )
    args = parser.parse_args(argv)
    if args.repeat is not None and args.repeat < 1:
        parser.error(f"--repeat takes a number of runs of at least 1, got {args.repeat}")
    if args.per_op and args.repeat is not None:
        print_per_operation_repeats(args.quick, args.repeat)
        return 0
    if args.per_op:
        print_per_operation(args.quick)
        return 0
    if args.repeat is not None:
        print_repeats(args.quick, args.repeat)
        return 0
    if args.facts:
        print(json.dumps(checked_facts(args.facts, args.quick)))
        return 0
    if not args.no_write:
        require_plotting()
    run = RunInfo(
        ".venv/bin/python -m benchmarks.bench_polling_traces" + (" --quick" if args.quick else "")
    )
    runs = measure(args.quick)
    repeats = repeated_runs(args.quick, REPEATS)
    if not args.no_write:
        plot(runs)
    rows = [_row(r) for r in runs]
    table_rows: list[list[str]] = []
    for trace in traces(args.quick):
        table_rows.append([f"**{trace.name}**", "", "", "", "", "", ""])
        table_rows += [row for r, row in zip(runs, rows, strict=True) if r.trace == trace]
    table = Table(
        key="polling_traces.side_by_side",
        title="Realistic traces, every client side by side",
        payload=(
            f"{MODEL} on `together-rl-emulator --timing realistic` (127.0.0.1, a subprocess); "
            "batch sizes scaled down to keep the run to minutes: a GRPO step samples 8 prompts x "
            "8 completions of 32 tokens (not 8 x 64 prompts), then a forward-backward over 64 "
            "sequences of 64-256 tokens (varying per step), then an optim-step; the submit-ahead "
            "loop keeps the next step's forward-backward and optim-step submitted while "
            "collecting one; the mix is forward-backwards of 64 x 32-320 tokens (0.1-1.1 s). "
            "Each client runs each trace once on a fresh session and a fresh client object, one "
            "client after the other; the official SDK's Trainer and Generator block, so in the "
            "submit-ahead loop the SDK is its Tinker layer's TrainingClient (its calls return "
            "futures); the TypeScript port only in the mix (it has forward-backward only, one "
            "call at a time)."
        ),
        columns=[
            "client",
            "s per step",
            "GETs per op",
            "lateness p50 ms",
            "p95 ms",
            "max ms",
            "p95 from 5th op / bound",
        ],
        rows=table_rows,
        facts=checked_facts("polling_traces.side_by_side", args.quick),
        align="l r r r r r r",
        notes=[
            *(
                goals(runs, trace, again)
                for trace, again in zip(traces(args.quick), repeats, strict=True)
            ),
            overruns(runs),
            "Lateness: from the emulator's COMPLETED (`finished_at`) to the client holding the "
            "result, both on the machine's wall clock; bound = max(10 ms, 5 % of the "
            "operation's duration). GETs: the emulator's count of operation GETs during the "
            "run, over the trace's operations. The plot: [polling_traces.png](polling_traces.png).",
        ],
    )
    section = "## Polling on realistic traces\n\n" + table.render(run.finish())
    return publish("polling-traces", section, args.no_write)


if __name__ == "__main__":
    sys.exit(main())
