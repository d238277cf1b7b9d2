"""Forward-backward through the emulator: submit -> COMPLETED, split into the server's decode,
hash, validation, math and storage, against a plain `orjson.loads` of the body, for 1 x 16,
8 x 128 and 64 x 2048 tokens with Qwen/Qwen3-8B's vocabulary (151,936).

    .venv/bin/python -m benchmarks.bench_emulator [--repeats N] [--no-write]

Writes its table between `<!-- emulator:start -->` and `<!-- emulator:end -->` in
docs/benchmarks.md (other sections of that file are left alone), with the checked facts (payloads,
code path) that tests/benchmarks/test_documented_figures.py recomputes.
"""

from __future__ import annotations

import os

# OpenBLAS's threads spin for a while after each call: left spinning in this process after the
# math stage, they took the 2 CPUs from the server during the HTTP measurement that follows it
# (64 x 2048: submit -> COMPLETED 84 ms, 60 ms with this setting, one run of each). So the
# stages run numpy on one thread, and the server is started with the caller's environment.
SERVER_ENV = dict(os.environ)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import contextlib
import json
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import numpy as np
import orjson
from together_rl_emulator.checking import (
    DecodedBody,
    decode_body,
    decode_fast,
    validate_forward_backward,
)
from together_rl_emulator.compute import init_policy, pass_update, run_forward_backward
from together_rl_emulator.state import NewOperation, Store, body_digest

from benchmarks._emulator_process import emulator_process
from benchmarks._report import Measured, RunInfo, Table, digest, interleaved, publish

__all__ = ["checked_facts", "main"]

MODEL = "Qwen/Qwen3-8B"
VOCAB = 151_936
SHAPES = [(1, 16), (8, 128), (64, 2048)]  # 1 x 16: a small op, where overhead dominates
TERMINAL = ("TRAINING_OPERATION_STATUS_COMPLETED", "TRAINING_OPERATION_STATUS_FAILED")
# submit -> COMPLETED is the server's commit time minus the client's time before the POST (one
# clock: both run here); the client polls lightly meanwhile. A client polling every millisecond
# is measured as well: its GETs compete with the operation for the server's interpreter.
LIGHT_POLL_S = 0.02
BUSY_POLL_S = 0.001


def grpo_body(n_samples: int, length: int, seed: int = 0) -> dict[str, Any]:
    rng = np.random.default_rng(seed)

    def tensor(values: list[Any], dtype: str) -> dict[str, Any]:
        return {"data": values, "dtype": dtype}

    masked = length // 4
    samples = [
        {
            "model_input": {"chunks": [{"encoded_text": {"tokens": random_tokens(rng, length)}}]},
            "loss_fn_inputs": {
                "target_tokens": tensor(rng.integers(0, VOCAB, length).tolist(), "int64"),
                "logprobs": tensor((-12 + rng.normal(0, 1, length)).tolist(), "float32"),
                "advantages": tensor(rng.normal(0, 1, length).tolist(), "float32"),
                "mask": tensor([0] * masked + [1] * (length - masked), "int64"),
            },
        }
        for _ in range(n_samples)
    ]
    return {"samples": samples, "loss": {"type": "LOSS_TYPE_GRPO"}}


def random_tokens(rng: np.random.Generator, length: int) -> list[int]:
    tokens: list[int] = rng.integers(0, VOCAB, length).tolist()
    return tokens


def server_decode(raw: bytes) -> DecodedBody:
    """What the server does with a forward-backward body: decode and scan it (`_handlers.py`)."""
    return decode_body(raw, orjson.loads, fast=True)


@contextlib.contextmanager
def stages(
    body: dict[str, Any], state_dir: str | None
) -> Iterator[dict[str, Callable[[], object]]]:
    """The server's stages on `body`, each callable in isolation."""
    raw = orjson.dumps(body)
    decoded = server_decode(raw)
    parsed, scan = decoded.value, decoded.scan
    request = validate_forward_backward(parsed, VOCAB, scan)
    params = init_policy(VOCAB, 1)
    result = run_forward_backward(params, request)
    store = Store(state_dir)
    session_ids: list[str] = []

    def storage() -> None:
        # What the server stores per operation: the PENDING row (+ the raw body with a state
        # dir) with its digest (the *hash* stage), the RUNNING mark, the result bytes and the
        # gradient sum.
        sid = f"sess-{uuid.uuid4()}"
        store.create_session(
            "owner",
            len(session_ids) + 1,
            VOCAB,
            1,
            {"id": sid, "status": "TRAINING_SESSION_STATUS_RUNNING"},
        )
        session_ids.append(sid)
        op = NewOperation(str(uuid.uuid4()), sid, "owner", "forward-backward", time.time(),
                          raw if store.persistent else None, "k", "digest")  # fmt: skip
        store.insert_operation(op)
        store.mark_running(op.id, time.time(), 0.0)
        session = store.get_session(None, sid)
        assert session is not None and result.grads is not None
        update = pass_update(store.trainer(session), result.grads)
        store.commit_operation(op.id, sid, result.output, update)

    try:
        yield {
            "decode": lambda: orjson.loads(raw),
            "server decode": lambda: server_decode(raw),
            "hash": lambda: body_digest(parsed, scan),
            "validation": lambda: validate_forward_backward(parsed, VOCAB, scan),
            "math": lambda: run_forward_backward(params, request),
            "storage": storage,
        }
    finally:
        store.close()


@contextlib.contextmanager
def submit_to_completed(
    body: dict[str, Any], state_dir: str | None, routes: list[str]
) -> Iterator[dict[str, Callable[[], object]]]:
    """One forward-backward submitted over loopback and polled to COMPLETED, the server in its
    own process (as deployed): `e2e` measured on the server's clock (`Measured`), `e2e busy` by
    the wall time of a client polling every millisecond. On exit the routes the server served
    (`/_emulator/stats`) go to `routes`."""
    args = ["--api-key", "bench"] + ([] if state_dir is None else ["--state-dir", state_dir])
    with emulator_process(*args, env=SERVER_ENV) as (base_url, _):
        raw = orjson.dumps(body)
        with httpx.Client(
            base_url=base_url, headers={"Authorization": "Bearer bench"}, timeout=120
        ) as client:
            mr = client.post("/v1/rl/model-resources", json={"base_model": MODEL}).json()["id"]
            sid = client.post("/v1/rl/training-sessions", json={"model_resources_id": mr}).json()
            path = f"/v1/rl/training-sessions/{sid['id']}/operations/forward-backward"

            def completed(poll_s: float) -> str:
                headers = {"Idempotency-Key": str(uuid.uuid4()), "Content-Type": "application/json"}
                op = client.post(path, content=raw, headers=headers).json()
                while op["status"] not in TERMINAL:
                    time.sleep(poll_s)
                    op = client.get(f"{path}/{op['id']}").json()
                assert op["status"] == TERMINAL[0], op
                operation_id: str = op["id"]
                return operation_id

            def on_server_clock() -> Measured:
                submitted = time.time()
                times = client.get(f"/_emulator/operations/{completed(LIGHT_POLL_S)}").json()
                return Measured(times["finished_at"] - submitted)

            yield {"e2e": on_server_clock, "e2e busy": lambda: completed(BUSY_POLL_S)}
            routes += sorted(client.get("/_emulator/stats").json()["requests"])


def measure_row(
    body: dict[str, Any], repeats: int, persistent: bool, routes: list[str]
) -> dict[str, float]:
    """Every stage and submit -> COMPLETED, interleaved (one of each per round), median ms."""
    with (
        tempfile.TemporaryDirectory() as stage_dir,
        tempfile.TemporaryDirectory() as server_dir,
        stages(body, stage_dir if persistent else None) as fns,
        submit_to_completed(body, server_dir if persistent else None, routes) as e2e,
    ):
        timed = interleaved({**fns, **e2e}, repeats)
    return {"body_mb": len(orjson.dumps(body)) / 1e6, **timed}


def entry(fn: Any) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


def emulator_facts(e2e_routes: list[str]) -> dict[str, Any]:
    """Payloads and code path of the table (see benchmarks/_report.py)."""
    payloads = {}
    for n, length in SHAPES:
        raw = orjson.dumps(grpo_body(n, length))
        payloads[f"{n} x {length}"] = {"bytes": len(raw), "sha256": digest(raw)}
    return {
        "model": MODEL,
        "vocab": VOCAB,
        "loss": "LOSS_TYPE_GRPO",
        "payloads": payloads,
        "states": ["memory", "state dir"],
        "stages": {
            "decode": entry(orjson.loads),
            "server decode": [entry(decode_fast), entry(DecodedBody.of)],
            "hash": entry(body_digest),
            "validation": entry(validate_forward_backward),
            "math": entry(run_forward_backward),
            "storage": [
                entry(fn)
                for fn in (
                    Store.insert_operation,
                    Store.mark_running,
                    pass_update,
                    Store.commit_operation,
                )
            ],
        },
        "end_to_end": {
            "server": "python -m together_rl_emulator",
            "requests": e2e_routes,
            "completed_at": "GET /_emulator/operations/{operation_id} finished_at",
            "poll_ms": [LIGHT_POLL_S * 1000, BUSY_POLL_S * 1000],
        },
    }


def render(rows: list[dict[str, Any]], repeats: int, run: RunInfo, facts: dict[str, Any]) -> str:
    table = Table(
        key="emulator.forward_backward",
        title="Forward-backward submit -> COMPLETED",
        payload=f"GRPO forward-backward bodies of {', '.join(f'{n} x {k}' for n, k in SHAPES)}"
        f" (samples x tokens, seed 0) with {MODEL}'s vocabulary ({VOCAB:,}); each stage the"
        f" median of {repeats} rounds, after one untimed round; times in ms.",
        columns=[
            "batch",
            "state",
            "body MB",
            "decode",
            "server decode",
            "hash",
            "validation",
            "math",
            "storage",
            "submit -> COMPLETED",
            "e2e / (decode + math)",
            "seen polling every 1 ms",
            "its ratio",
        ],
        align="l l r r r r r r r r r r r",
        rows=[
            [
                r["shape"],
                r["state"],
                f"{r['body_mb']:.2f}",
                f"{r['decode']:.2f}",
                f"{r['server decode']:.2f}",
                f"{r['hash']:.2f}",
                f"{r['validation']:.2f}",
                f"{r['math']:.2f}",
                f"{r['storage']:.2f}",
                f"{r['e2e']:.2f}",
                f"{r['e2e'] / (r['decode'] + r['math']):.2f}",
                f"{r['e2e busy']:.2f}",
                f"{r['e2e busy'] / (r['decode'] + r['math']):.2f}",
            ]
            for r in rows
        ],
        facts=facts,
        notes=[
            "Stages are measured in isolation: *decode* = `orjson.loads` of the body, the"
            " reference of the goal; *server decode* = what the server does instead: the body"
            " decoded with its number lists straight into arrays (`_fast_decode.py`, bodies of"
            " 256 KiB and more) or `orjson.loads` and one pass over the lists, shared by the next"
            " two; *hash* = the idempotency digest; *validation* = schema + semantic rules into"
            " arrays; *math* = policy forward, loss, backward and result encoding; *storage* ="
            " PENDING row, RUNNING, result and gradient sum (with a state dir: fsynced SQLite WAL"
            " commits and the `.npz` gradient file).",
            "*Submit -> COMPLETED* is measured over loopback HTTP against the emulator in its own"
            " process (uvicorn, as deployed): from the client's clock just before the POST to the"
            " moment the server committed COMPLETED (`finished_at` of `GET"
            " /_emulator/operations/{id}`; one clock, one machine), the client polling every"
            f" {LIGHT_POLL_S * 1000:.0f} ms meanwhile. The goal for 64 x 2048 is *e2e / (decode +"
            " math)* <= 1.3 in memory (with a state dir the server also fsyncs the 7 MB request"
            " before it answers, by design). *Seen polling every 1 ms* is the same, timed by a"
            " client that polls every millisecond: its GETs take the interpreter from the"
            " server's worker while the math runs.",
            "The stages and both HTTP figures of a row are interleaved in one run: each round"
            " times every stage once, then one operation of each HTTP kind. The benchmark"
            " process runs its stages with OPENBLAS_NUM_THREADS=1 (the server keeps the"
            " caller's environment): OpenBLAS threads left spinning after the math stage took"
            " the CPUs from the server during the HTTP measurement.",
        ],
    )
    return "## Emulator\n\n" + table.render(run)


def checked_facts(key: str) -> dict[str, Any]:
    """The table's facts, recomputed with one end-to-end operation on the smallest shape."""
    if key != "emulator.forward_backward":
        raise KeyError(key)
    routes: list[str] = []
    for n, length in SHAPES:  # every stage and one operation on every payload, in both states
        body = grpo_body(n, length)
        measure_row(body, 0, persistent=False, routes=routes)
        measure_row(body, 0, persistent=True, routes=routes)
    return emulator_facts(sorted(set(routes)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs alone")
    parser.add_argument("--facts", metavar="TABLE", help="print TABLE's checked facts, no timing")
    args = parser.parse_args(argv)
    if args.facts:
        print(json.dumps(checked_facts(args.facts)))
        return 0
    command = ".venv/bin/python -m benchmarks.bench_emulator"
    run = RunInfo(command + ("" if args.repeats == 7 else f" --repeats {args.repeats}"))
    rows = []
    routes: list[str] = []
    for n, length in SHAPES:
        body = grpo_body(n, length)
        for state in ("memory", "state dir"):
            row: dict[str, Any] = {"shape": f"{n} x {length}", "state": state}
            row.update(measure_row(body, args.repeats, state == "state dir", routes))
            rows.append(row)
            print(row, file=sys.stderr, flush=True)
    routes = sorted(set(routes))
    run.finish()
    section = render(rows, args.repeats, run, emulator_facts(routes))
    return publish("emulator", section, args.no_write)


if __name__ == "__main__":
    sys.exit(main())
