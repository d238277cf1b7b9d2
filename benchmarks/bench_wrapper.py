"""Wrapper benchmark: the together_rl wrapper against the official SDK (together==3.1.1).

    .venv/bin/python -m benchmarks.bench_wrapper [--quick] [--no-write]

Starts the emulator as a uvicorn subprocess on loopback (one per --op-latency-ms value) and
measures, side by side in one run:
1. polling: median time from operation completion to result in the caller's hands, and GETs per
   operation (from /_emulator/stats), at D = 20, 200, 1300 ms;
2. one 64 x 2048 GRPO request encoded and a response with loss_fn_outputs decoded: plain orjson,
   the wrapper, the generated attrs client and the official SDK's raw
   `operations.forward_backward`, all on the same wire dicts, interleaved;
3. pipelining at D = 200 ms: steps/s with submit-ahead vs strictly sequential.
Writes its section of docs/benchmarks.md between the wrapper markers, each table with the checked
facts (payload, code path) that tests/benchmarks/test_documented_figures.py recomputes.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import orjson
from together._utils import _transform as sdk_transform
from together_rl import Client, PollPolicy, Sample, losses
from together_rl._bodies import encode_body
from together_rl._responses import interpret_operation

from benchmarks._emulator_process import emulator_process
from benchmarks._report import (
    ROOT,
    RunInfo,
    Table,
    bench_arguments,
    digest,
    interleaved,
    publish,
    versions,
)

__all__ = ["checked_facts", "main"]

# The official SDK's param transform walks every element of a list whose item type is not bare
# int or float: with together 3.1.1, every `model_input` token (`SequenceNotStr[Union[str, int]]`).
# Importing `together.post_training` (SessionClient, Trainer, tinker) installs, process-wide, a
# patch that lets such lists skip the walk. So the raw `operations.forward_backward` has two
# speeds depending on what the process imported before. The process keeps the patch (the Trainer
# of the polling table always runs with it); the large-batch table measures both states, each set
# explicitly for its row (`sdk_state`), never left to import order: the first published figure
# was taken after the polling table had imported `together.post_training`, unknowingly on the
# fast path.
SDK_PLAIN_PREDICATE = sdk_transform._no_transform_needed
if SDK_PLAIN_PREDICATE.__module__ != sdk_transform.__name__:
    raise RuntimeError("import benchmarks.bench_wrapper before together.post_training")
importlib.import_module("together.post_training")  # installs its patch, as the Trainer runs
SDK_PATCHED_PREDICATE = sdk_transform._no_transform_needed

KEY = "bench-key"
FB_GET = "GET /v1/rl/training-sessions/{session_id}/operations/forward-backward/{operation_id}"
FB_POST = "POST /v1/rl/training-sessions/{session_id}/operations/forward-backward"
LOSS = losses.GRPO(clip_low_threshold=0.8, clip_high_threshold=1.2)
BIG_SHAPE = (64, 2048)  # samples x tokens of the large request
SMALL_SHAPE = (4, 8)  # samples x tokens of the polling and pipelining operations
PIPE_D_MS = 200
WARMUP_D_MS = (20, 200, 1300, 2000)  # the session warm-up goal holds at every D up to 2 s
WARMUP_OPS = 4  # the goal is over a session's first 4 operations
WARMUP_MAX_GETS = 3.0  # GETs per operation, averaged over those 4
# Operations before the measured ones of the steady-state tables: a session's warm-up (the
# warm-up table measures it), so what they measure is the steady state the goal is about.
POLL_WARMUP = WARMUP_OPS
# The other side of the trade-off (docs/wrapper.md: no schedule meets both goals for a fresh
# client): the warm-up budget at which the fake-clock model meets the lateness goal at every D.
TRADE_OFF_BUDGET = 8.0


def config(quick: bool) -> dict[str, Any]:
    """What a run does: the only difference between the full run and --quick is repetitions."""
    return {
        "poll_ops": {20: 5, 200: 3, 1300: 2} if quick else {20: 15, 200: 10, 1300: 5},
        "big_repeat": 3 if quick else 9,
        "pipe_steps": 4 if quick else 12,
        "warmup_sessions": 2 if quick else 3,
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


def build_forward_backward(samples: Any, loss: Any) -> dict[str, Any]:
    """The wrapper's checked forward-backward body (imported here, where it is used: the
    polling runs of ``--side-by-side`` also import this module over an older wrapper)."""
    from together_rl._bodies import build_forward_backward as build

    return build(samples, loss)


def small_payload_facts(batch: list[Sample]) -> dict[str, Any]:
    body = encode_body(build_forward_backward(batch, LOSS))
    return {"shape": "{} x {}".format(*SMALL_SHAPE), "bytes": len(body), "sha256": digest(body)}


def finished_at(base_url: str, operation_id: str) -> float:
    """When the emulator committed the operation (Unix seconds, its clock: this machine's)."""
    return float(emulator_get(base_url, f"/_emulator/operations/{operation_id}")["finished_at"])


def gets_posts(base_url: str) -> tuple[int, int]:
    requests = stats(base_url)["requests"]
    return int(requests.get(FB_GET, 0)), int(requests.get(FB_POST, 0))


# --------------------------------------------------------------------------- 1. polling


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


def polling_warmup(d_ms: int, ops: int = 4, sessions: int = 3) -> dict[str, Any]:
    """The first `ops` operations of fresh sessions against the emulator at `--op-latency-ms
    d_ms`, one after the other: the first session of a fresh client (no history at all) and
    `sessions - 1` more sessions of the same client (it has learned from the sessions before);
    then the first session of a fresh client with `PollPolicy(warmup_budget=TRADE_OFF_BUDGET)`.
    Per session: GETs per operation over its first `ops`, and each operation's lateness: from
    the moment the emulator committed it COMPLETED (`GET /_emulator/operations/{id}`) to the
    moment `result()` returned it (one clock: both processes run on this machine)."""
    rows: list[dict[str, Any]] = []
    with emulator(d_ms) as base_url:
        batch = small_batch()
        clients = [
            (Client(KEY, base_url), sessions, ""),
            (
                Client(KEY, base_url, poll_policy=PollPolicy(warmup_budget=TRADE_OFF_BUDGET)),
                1,
                f", warmup_budget={TRADE_OFF_BUDGET:.0f}",
            ),
        ]
        for client, count, label in clients:
            for index in range(count):
                # One full-weight resource runs one session at a time: one per session.
                resources = client.model_resources.create("emulator/tiny-1k")
                session = client.sessions.create(model_resources_id=resources.id)
                gets, lateness = [], []
                for _ in range(ops):
                    g0, _ = gets_posts(base_url)
                    future = session.forward_backward(batch, LOSS)
                    future.result()
                    returned = time.time()
                    lateness.append(returned - finished_at(base_url, future.operation_id))
                    g1, _ = gets_posts(base_url)
                    gets.append(g1 - g0)
                name = "fresh client" if index == 0 else f"session {index + 1}"
                rows.append(
                    {
                        "session": name + label,
                        "gets_per_op": sum(gets) / ops,
                        "gets": gets,
                        "lateness_ms": [round(1000 * t, 1) for t in lateness],
                    }
                )
            client.close()
    return {"d": d_ms, "bound_ms": max(10.0, 0.05 * d_ms), "sessions": rows}


def polling_fake_clock(seeds: int) -> dict[str, Any]:
    """The schedule alone, on a fake clock (no emulator, no load): per D, over `seeds` runs,
    a fresh session's 40 operations of D ± 2.5 % (at least ± 2 ms) each, sequential, then a
    second session's 4 (same client). GETs are answered after 1-1.5 ms and sent up to 0.3 ms
    late; lateness is from completion to the GET that sees it. Imports whichever together_rl
    is first on the path (both sides of --side-by-side)."""
    import random

    from together_rl._polling import PollHistory, PollPlanner

    def session(planner: Any, durations: list[float], rng: random.Random) -> list[Any]:
        now, out = 0.0, []
        for duration in durations:
            poll = planner.submitted("fb", now)
            done_at, done = now + duration, False
            while not done:
                at = max(poll.next_poll_at(), now) + rng.uniform(0, 0.0003)
                done = at >= done_at
                poll.observe(sent_at=at, done=done)
                now = at + rng.uniform(0.001, 0.0015)
            planner.finished(poll)
            out.append((poll.gets, at - done_at))
            now += 0.002  # the next POST
        return out

    rows = []
    for d_ms in (20, 200, 1300, 2000):
        d, runs = d_ms / 1000, []
        bound, jitter = max(0.010, 0.05 * d), max(0.002, 0.025 * d)
        for seed in range(seeds):
            rng, history = random.Random(seed), PollHistory()
            for count in (40, 4):  # a fresh session's operations, then a second session's
                durations = [d + rng.uniform(-jitter, jitter) for _ in range(count)]
                runs.append(session(PollPlanner(None, history), durations, rng))
        fresh, again = runs[::2], runs[1::2]
        first4 = [sum(g for g, _ in ops[:4]) / 4 for ops in fresh]
        steady = [op for ops in fresh for op in ops[12:]]
        rows.append(
            {
                "d": d_ms,
                "fresh_gets_first4_mean": statistics.mean(first4),
                "fresh_gets_first4_max": max(first4),
                "fresh_first4_over_3_gets": statistics.mean(g > 3 for g in first4),
                "fresh_late_ops2_4_ms": statistics.mean(max(t for _, t in o[1:4]) for o in fresh),
                "fresh_within_bound_from_5th": statistics.mean(
                    t <= bound for ops in fresh for _, t in ops[4:]
                ),
                "steady_gets": statistics.mean(g for g, _ in steady),
                "steady_late_median_ms": statistics.median(t for _, t in steady),
                "session2_gets_first4": statistics.mean(g for ops in again for g, _ in ops),
                "session2_late_max_ms": statistics.mean(max(t for _, t in ops) for ops in again),
            }
        )
    for row in rows:  # seconds to milliseconds
        row.update({k: 1000 * v for k, v in row.items() if k.endswith("_ms")})
    return {"seeds": seeds, "rows": rows}


def warmup_facts(sessions: int) -> dict[str, Any]:
    from together_rl._sync import Session

    return {
        "payload": small_payload_facts(small_batch()),
        "loss": LOSS.to_wire(),
        "d_ms": list(WARMUP_D_MS),
        "ops_per_session": WARMUP_OPS,
        "sessions_per_client": sessions,
        "trade_off_warmup_budget": TRADE_OFF_BUDGET,
        "entry": entry(Session.forward_backward),
    }


def warmup_table(runs: list[dict[str, Any]], sessions: int) -> Table:
    rows = []
    for run in runs:
        for row in run["sessions"]:
            later = max(row["lateness_ms"][1:])
            rows.append(
                [
                    str(run["d"]),
                    row["session"],
                    f"{row['gets_per_op']:.2f}",
                    " / ".join(str(g) for g in row["gets"]),
                    " / ".join(f"{t:.0f}" for t in row["lateness_ms"]),
                    f"{later:.1f} (bound {run['bound_ms']:.0f})",
                    "met" if row["gets_per_op"] <= WARMUP_MAX_GETS else "NOT met",
                    "met" if later <= run["bound_ms"] else "NOT met",
                ]
            )
    n, length = SMALL_SHAPE
    return Table(
        key="wrapper.polling_warmup",
        title="Polling: the first operations of a session (wrapper)",
        payload=f"GRPO forward-backward, {n} samples x {length} tokens; per D, one fresh client "
        f"opens {sessions} sessions one after the other and runs the first {WARMUP_OPS} "
        "operations of each, sequentially; emulator `--op-latency-ms D` as a uvicorn subprocess "
        "on 127.0.0.1, one per D.",
        columns=[
            "D (ms)",
            "session",
            "GETs/op (first 4)",
            "GETs of each op",
            "lateness of each op (ms)",
            "lateness from the 2nd op, max (ms)",
            "GETs goal",
            "lateness goal",
        ],
        align="r l r r r r l l",
        rows=rows,
        facts=warmup_facts(sessions),
        notes=[
            f"Goal: at most {WARMUP_MAX_GETS:.0f} GETs per operation averaged over a session's "
            f"first {WARMUP_OPS}, and from the second operation on a lateness within max(10 ms, "
            "5% of D). Lateness: from the moment the emulator committed the operation COMPLETED "
            "(`finished_at` of `GET /_emulator/operations/{id}`) to the moment `result()` "
            "returned it, the collecting GET's round trip included (one clock: one machine). "
            "The first session of a fresh client starts with no history; later sessions start "
            "from what the client learned. GETs from `/_emulator/stats`.",
            "No schedule meets both goals in a fresh client's first session at every D: its "
            "first operation's GETs only tell it that D lies between two of them, and "
            "collecting the second within 5% of D anywhere in such a bracket takes more GETs "
            "than the budget leaves (the argument: docs/wrapper.md, Policies, Polling). The "
            "default keeps the GET budget; the last row of each D is the other side of the "
            "trade-off, "
            f"`PollPolicy(warmup_budget={TRADE_OFF_BUDGET:.0f})`.",
        ],
    )


def polling_facts(rows: list[dict[str, Any]], ops: dict[int, int]) -> dict[str, Any]:
    from together.post_training.clients.trainer import Trainer
    from together_rl._sync import Session

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


def big_data() -> tuple[list[dict[str, Any]], list[Sample], bytes]:
    """The 64 x 2048 request (wire dicts and the same samples as builders) and a response with
    loss_fn_outputs. Seeded: the same bytes on every run (their digests are checked facts)."""
    batch, length = BIG_SHAPE
    rng = np.random.default_rng(0)
    dicts, samples = [], []
    for _ in range(batch):
        prompt = rng.integers(0, 150_000, 256)
        completion = rng.integers(0, 150_000, length - 256 + 1)
        logprobs = -rng.random(len(completion))
        sample = Sample.from_completion(prompt, completion, logprobs=logprobs, advantages=0.5)
        samples.append(sample)
        dicts.append(
            orjson.loads(orjson.dumps(sample.to_wire(), option=orjson.OPT_SERIALIZE_NUMPY))
        )
    response = {
        "id": "op-1",
        "status": "TRAINING_OPERATION_STATUS_COMPLETED",
        "output": {
            "loss": 0.5,
            "metrics": {"loss/clip/high_fraction": 0.1},
            "loss_fn_outputs": [
                {
                    "tensors": {
                        "logprobs": {
                            "data": [float(x) for x in -rng.random(length)],
                            "dtype": "float32",
                        }
                    }
                }
                for _ in range(batch)
            ],
        },
    }
    return dicts, samples, orjson.dumps(response)


class _Recorder:
    """A MockTransport handler that answers the canned response and keeps what was sent."""

    def __init__(self, response: bytes) -> None:
        self.response = response
        self.sent: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        headers = {"content-type": "application/json"}
        return httpx.Response(200, content=self.response, headers=headers)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)


@contextlib.contextmanager
def counting_sdk_transform() -> Iterator[list[int]]:
    """Count the official SDK's recursive param transform calls: one per element it walks.

    The SDK walks every element of a list whose item type is not plain int or float; with
    together 3.1.1 that is every token of `model_input` (typed `SequenceNotStr[Union[str, int]]`),
    and it is most of the SDK's time on a large batch. The count is part of the SDK row's code
    path: a different SDK or payload that skips the walk changes it.
    """
    count = [0]
    original = sdk_transform._transform_recursive

    def counted(*args: Any, **kwargs: Any) -> object:
        count[0] += 1
        return original(*args, **kwargs)

    sdk_transform._transform_recursive = counted
    try:
        yield count
    finally:
        sdk_transform._transform_recursive = original


def sdk_state(patched: bool) -> Callable[[Callable[[], object]], Callable[[], object]]:
    """Run a callable with the SDK's transform as plain `import together` leaves it, or as
    `import together.post_training` leaves it."""
    predicate = SDK_PATCHED_PREDICATE if patched else SDK_PLAIN_PREDICATE

    def wrap(fn: Callable[[], object]) -> Callable[[], object]:
        def run() -> object:
            before = sdk_transform._no_transform_needed
            sdk_transform._no_transform_needed = predicate
            try:
                return fn()
            finally:
                sdk_transform._no_transform_needed = before

        return run

    return wrap


class LargeBatch:
    """The measured callables of the large-batch table, all on the same payload."""

    def __init__(self) -> None:
        from together import Together
        from together._utils import maybe_transform
        from together.types.post_training import operation_forward_backward_params
        from together_rl_client import AuthenticatedClient
        from together_rl_client.api.rl import forward_backward as generated_fb
        from together_rl_client.models import ForwardBackwardBody

        self.dicts, self.samples, self.response = big_data()
        self.loss = LOSS.to_wire()
        self.body = {"samples": self.dicts, "loss": self.loss}
        self.recorders = {
            name: _Recorder(self.response) for name in ("wrapper", "generated", "sdk")
        }
        # Inline, as the official SDK's raw method sends it: the comparison stays like for like.
        self.client = Client(
            KEY,
            "http://mock.test",
            transport=self.recorders["wrapper"].transport(),
            upload_threshold=None,
        )
        self.session = self.client.session("s1")
        self.generated_client = AuthenticatedClient(
            base_url="http://mock.test/v1",
            token=KEY,
            httpx_args={"transport": self.recorders["generated"].transport()},
        )
        self.sdk = Together(
            api_key=KEY,
            base_url="http://mock.test",
            http_client=httpx.Client(transport=self.recorders["sdk"].transport()),
        )
        self._generated_fb = generated_fb
        self._body_model = ForwardBackwardBody
        self._maybe_transform = maybe_transform
        self._sdk_params = operation_forward_backward_params.OperationForwardBackwardParams

    def rows(self) -> dict[str, tuple[str, Callable[[], object], str]]:
        """name -> (label, callable, entry point), in the order of the table."""
        sdk_ops = self.sdk.post_training.operations

        def sdk_call() -> object:
            return sdk_ops.forward_backward(
                "s1",
                idempotency_key="k",
                samples=self.dicts,  # type: ignore[arg-type]
                loss=self.loss,  # type: ignore[arg-type]
            )

        return {
            "orjson_encode": (
                "plain `orjson.dumps` of the wire dicts",
                lambda: orjson.dumps(self.body),
                entry(orjson.dumps),
            ),
            "wrapper_encode_dicts": (
                "wrapper: check + encode the same dicts",
                lambda: encode_body(build_forward_backward(self.dicts, LOSS)),
                entry(encode_body),
            ),
            "wrapper_encode_samples": (
                "wrapper: check + encode from `Sample` builders (numpy)",
                lambda: encode_body(build_forward_backward(self.samples, LOSS)),
                entry(encode_body),
            ),
            "orjson_decode": (
                "plain `orjson.loads` of the response",
                lambda: orjson.loads(self.response),
                entry(orjson.loads),
            ),
            "wrapper_decode": (
                "wrapper: decode into numpy float32 arrays",
                lambda: interpret_operation(orjson.loads(self.response)),
                entry(interpret_operation),
            ),
            "wrapper_call": (
                "wrapper full call: `forward_backward(...).result()`",
                lambda: self.session.forward_backward(self.dicts, LOSS).result(),
                entry(type(self.session).forward_backward),
            ),
            "generated_models": (
                "generated attrs models: `ForwardBackwardBody.from_dict(...).to_dict()`",
                lambda: self._body_model.from_dict(self.body).to_dict(),
                entry(self._body_model.from_dict),
            ),
            "generated_call": (
                "generated client full call: `from_dict` + `forward_backward.sync_detailed`",
                lambda: self._generated_fb.sync_detailed(
                    "s1",
                    client=self.generated_client,
                    body=self._body_model.from_dict(self.body),
                    idempotency_key="k",
                ),
                entry(self._generated_fb.sync_detailed),
            ),
            "sdk_transform": (
                "SDK, plain `import together`: its param transform alone (`maybe_transform`)",
                sdk_state(patched=False)(
                    lambda: self._maybe_transform(self.body, self._sdk_params)
                ),
                f"{entry(self._maybe_transform)} with {entry(SDK_PLAIN_PREDICATE)}",
            ),
            "sdk_call": (
                "SDK, plain `import together`: raw `operations.forward_backward`",
                sdk_state(patched=False)(sdk_call),
                f"{entry(type(sdk_ops).forward_backward)} with {entry(SDK_PLAIN_PREDICATE)}",
            ),
            "sdk_call_patched": (
                "SDK after `import together.post_training`: raw `operations.forward_backward`",
                sdk_state(patched=True)(sdk_call),
                f"{entry(type(sdk_ops).forward_backward)} with {entry(SDK_PATCHED_PREDICATE)}",
            ),
        }

    def facts(self) -> dict[str, Any]:
        """Run every row once, untimed, and describe payload and code path."""
        request = orjson.dumps(self.body)
        rows: dict[str, Any] = {}
        for name, (_, fn, where) in self.rows().items():
            for recorder in self.recorders.values():
                recorder.sent.clear()
            with counting_sdk_transform() as walked:
                fn()
            row: dict[str, Any] = {"entry": where}
            sent = [r for recorder in self.recorders.values() for r in recorder.sent]
            if sent:
                row["requests"] = [f"{r.method} {r.url.path}" for r in sent]
                row["sent_bytes"] = len(sent[0].content)
                row["sent_sha256"] = digest(sent[0].content)
                row["sent_same_as_orjson"] = sent[0].content == request
            if walked[0]:
                row["sdk_elements_walked"] = walked[0]
            rows[name] = row
        batch, length = BIG_SHAPE
        return {
            "payload": {
                "shape": f"{batch} x {length}",
                "request_bytes": len(request),
                "request_sha256": digest(request),
                "response_bytes": len(self.response),
                "response_sha256": digest(self.response),
            },
            "loss": self.loss,
            "together": versions().get("together"),
            "rows": rows,
        }

    def close(self) -> None:
        self.client.close()


def large_batch_table(quick: bool) -> Table:
    bench = LargeBatch()
    try:
        rows = bench.rows()
        timed = interleaved(
            {name: fn for name, (_, fn, _) in rows.items()}, config(quick)["big_repeat"]
        )
        facts = bench.facts()
    finally:
        bench.close()

    def vs(name: str, base: str) -> str:
        return f"{timed[name] / timed[base]:.2f}x {base.replace('_', ' ')}"

    compare = {
        "wrapper_encode_dicts": vs("wrapper_encode_dicts", "orjson_encode"),
        "wrapper_encode_samples": vs("wrapper_encode_samples", "orjson_encode"),
        "wrapper_decode": vs("wrapper_decode", "orjson_decode"),
        "generated_models": vs("generated_models", "orjson_encode"),
        "generated_call": vs("generated_call", "wrapper_call"),
        "sdk_transform": f"{timed['sdk_transform'] / timed['sdk_call']:.0%} of the SDK call",
        "sdk_call": vs("sdk_call", "wrapper_call"),
        "sdk_call_patched": vs("sdk_call_patched", "wrapper_call"),
    }
    payload = facts["payload"]
    return Table(
        key="wrapper.large_batch",
        title="One 64 x 2048 GRPO forward-backward: wrapper, generated models and the SDK",
        payload=f"64 samples x 2048 tokens (`model_input` tokens, target_tokens, logprobs, "
        f"advantages, weights), GRPO, seed 0: request {payload['request_bytes'] / 1e6:.1f} MB, "
        f"response with loss_fn_outputs {payload['response_bytes'] / 1e6:.1f} MB; the same "
        "wire dicts for every row. Full calls go to an `httpx.MockTransport` that answers the "
        "canned response (no network), the request sent inline by all three clients.",
        columns=["step", "median ms", "ratio"],
        align="l r r",
        rows=[
            [label, f"{timed[name]:.1f}", compare.get(name, "")]
            for name, (label, _, _) in rows.items()
        ],
        facts=facts,
        notes=[
            f"All rows interleaved in one run ({config(quick)['big_repeat']} rounds, one "
            "repetition of each per round, after one untimed round). The SDK's param transform "
            "walks each `model_input` token unless `together.post_training` has been imported "
            '(`sdk_elements_walked` in the facts): see "Why the first published SDK figure '
            "was a tenth of a reader's\" above."
        ],
    )


# --------------------------------------------------------------------------- 3. pipelining


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
    from together_rl._sync import Session

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


# --------------------------------------------------------------------------- facts check


def checked_facts(key: str, quick: bool) -> dict[str, Any]:
    """The checked facts of table `key` for a run with or without --quick, recomputed with the
    fewest repetitions that exercise every code path (for tests/benchmarks)."""
    cfg = config(quick)
    if key == "wrapper.polling":
        facts = polling_facts([polling(min(cfg["poll_ops"]), 1)], cfg["poll_ops"])
    elif key == "wrapper.polling_warmup":
        polling_warmup(min(WARMUP_D_MS), ops=2, sessions=1)  # the code path, once
        facts = warmup_facts(cfg["warmup_sessions"])
    elif key == "wrapper.large_batch":
        bench = LargeBatch()
        try:
            facts = bench.facts()
        finally:
            bench.close()
    elif key == "wrapper.pipelining":
        facts = dict(pipelining_table(pipelining(2), cfg["pipe_steps"]).facts)
    else:
        raise KeyError(key)
    return {"quick": quick, **facts}


# --------------------------------------------------------------------------- side by side


def side_by_side(other: Path, quick: bool) -> list[dict[str, Any]]:
    """The polling tables' runs for another copy of the wrapper (``other``: a folder holding a
    ``together_rl`` package, put first on ``PYTHONPATH``) and for this checkout's, alternating
    one subprocess per code version for each D, so both see the same load."""
    cfg = config(quick)
    calls = [("polling", f"polling({d}, {n})") for d, n in cfg["poll_ops"].items()]
    calls += [("warmup", f"polling_warmup({d}, {WARMUP_OPS}, 3)") for d in WARMUP_D_MS]
    calls += [("fake_clock", f"polling_fake_clock({50 if quick else 200})")]
    rows = []
    for table, call in calls:
        for code, path in (("other", str(other)), ("this", "")):
            source = (
                "import json, together_rl; from benchmarks.bench_wrapper import polling, "
                f"polling_fake_clock, polling_warmup; r = {call}; "
                "r['code_path'] = together_rl.__file__; "
                "print(json.dumps(r))"
            )
            env = {**os.environ, "PYTHONPATH": path} if path else dict(os.environ)
            out = subprocess.run(
                [sys.executable, "-c", source],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            rows.append({"table": table, "code": code, **json.loads(out.stdout.splitlines()[-1])})
    return rows


# --------------------------------------------------------------------------- report


def main(argv: list[str] | None = None) -> int:
    parser = bench_arguments(__doc__)
    parser.add_argument(
        "--side-by-side",
        metavar="DIR",
        type=Path,
        help="print the polling runs of the together_rl package in DIR and of this checkout, "
        "interleaved, as JSON (no table is written)",
    )
    args = parser.parse_args(argv)
    if args.facts:
        print(json.dumps(checked_facts(args.facts, args.quick)))
        return 0
    if args.side_by_side:
        load = os.getloadavg()[0]
        rows = side_by_side(args.side_by_side, args.quick)
        print(json.dumps({"load": [load, os.getloadavg()[0]], "rows": rows}, indent=1))
        return 0
    cfg = config(args.quick)
    command = ".venv/bin/python -m benchmarks.bench_wrapper" + (" --quick" if args.quick else "")
    built: list[tuple[Table, RunInfo]] = []
    run = RunInfo(command)
    poll = [polling(d, n) for d, n in cfg["poll_ops"].items()]
    built.append((polling_table(poll, cfg["poll_ops"]), run.finish()))
    run = RunInfo(command)
    sessions = cfg["warmup_sessions"]
    warm = [polling_warmup(d, WARMUP_OPS, sessions) for d in WARMUP_D_MS]
    built.append((warmup_table(warm, sessions), run.finish()))
    run = RunInfo(command)
    built.append((large_batch_table(args.quick), run.finish()))
    run = RunInfo(command)
    pipe = pipelining(cfg["pipe_steps"])
    built.append((pipelining_table(pipe, cfg["pipe_steps"]), run.finish()))
    for table, _ in built:
        table.facts = {"quick": args.quick, **table.facts}
    section = "\n\n".join(
        ["## Wrapper (`together_rl`) vs the official SDK"] + [t.render(r) for t, r in built]
    )
    return publish("wrapper", section, args.no_write)


if __name__ == "__main__":
    sys.exit(main())
