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
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import orjson
from together._utils import _transform as sdk_transform
from together_rl import Client, Sample, losses
from together_rl._bodies import encode_body
from together_rl._responses import interpret_operation

from benchmarks._emulator_process import emulator_process
from benchmarks._report import (
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


# --------------------------------------------------------------------------- report


def main(argv: list[str] | None = None) -> int:
    parser = bench_arguments(__doc__)
    args = parser.parse_args(argv)
    if args.facts:
        print(json.dumps(checked_facts(args.facts, args.quick)))
        return 0
    cfg = config(args.quick)
    command = ".venv/bin/python -m benchmarks.bench_wrapper" + (" --quick" if args.quick else "")
    built: list[tuple[Table, RunInfo]] = []
    run = RunInfo(command)
    poll = [polling(d, n) for d, n in cfg["poll_ops"].items()]
    built.append((polling_table(poll, cfg["poll_ops"]), run.finish()))
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
