"""Forward-backward through the emulator: submit -> COMPLETED, split into JSON decode, validation,
math and storage, for 8 x 128 and 64 x 2048 tokens with Qwen/Qwen3-8B's vocabulary (151,936).

    .venv/bin/python benchmarks/bench_emulator.py [--repeats N] [--no-write]

Writes its table between `<!-- emulator:start -->` and `<!-- emulator:end -->` in
docs/benchmarks.md (other sections of that file are left alone).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import orjson
from together_rl_emulator._engine import run_forward_backward
from together_rl_emulator._idempotency import body_hash
from together_rl_emulator._policy_model import init_policy
from together_rl_emulator._requests import validate_forward_backward
from together_rl_emulator._store import NewOperation, Store
from together_rl_emulator._trainer import pass_update

MODEL = "Qwen/Qwen3-8B"
VOCAB = 151_936
SHAPES = [(1, 16), (8, 128), (64, 2048)]  # 1 x 16: a small op, where overhead dominates
DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
START, END = "<!-- emulator:start -->", "<!-- emulator:end -->"
TERMINAL = ("TRAINING_OPERATION_STATUS_COMPLETED", "TRAINING_OPERATION_STATUS_FAILED")
POLL_S = 0.001  # the client polls every millisecond


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


def median_ms(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def stage_times(body: dict[str, Any], repeats: int, state_dir: str | None) -> dict[str, float]:
    raw = orjson.dumps(body)
    parsed = orjson.loads(raw)
    request = validate_forward_backward(parsed, VOCAB)
    params = init_policy(VOCAB, 1)
    result = run_forward_backward(params, request)
    store = Store(state_dir)
    session_ids: list[str] = []

    def storage() -> None:
        # What the server stores per operation: the idempotency hash, the PENDING row (+ the raw
        # body with a state dir), the RUNNING mark, the result bytes and the gradient sum.
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
                          raw if store.persistent else None, "k", body_hash(parsed))  # fmt: skip
        store.insert_operation(op)
        store.mark_running(op.id)
        session = store.get_session(None, sid)
        assert session is not None and result.grads is not None
        update = pass_update(store.trainer(session), result.grads)
        store.commit_operation(op.id, sid, result.output, update)

    out = {
        "body_mb": len(raw) / 1e6,
        "decode": median_ms(lambda: orjson.loads(raw), repeats),
        "hash": median_ms(lambda: body_hash(parsed), repeats),
        "validation": median_ms(lambda: validate_forward_backward(parsed, VOCAB), repeats),
        "math": median_ms(lambda: run_forward_backward(params, request), repeats),
        "storage": median_ms(storage, repeats),
    }
    store.close()
    return out


def end_to_end_ms(body: dict[str, Any], repeats: int, state_dir: str | None) -> float:
    """Median submit -> COMPLETED over loopback, the server in its own process (as deployed)."""
    args = [sys.executable, "-m", "together_rl_emulator", "--port", "0", "--api-key", "bench"]
    if state_dir is not None:
        args += ["--state-dir", state_dir]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        base_url = ""
        while not base_url:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError("the emulator exited before listening")
            found = re.search(r"listening on (http://\S+)", line)
            base_url = found.group(1) if found else ""
        raw = orjson.dumps(body)
        with httpx.Client(
            base_url=base_url, headers={"Authorization": "Bearer bench"}, timeout=120
        ) as client:
            mr = client.post("/v1/rl/model-resources", json={"base_model": MODEL}).json()["id"]
            sid = client.post("/v1/rl/training-sessions", json={"model_resources_id": mr}).json()
            path = f"/v1/rl/training-sessions/{sid['id']}/operations/forward-backward"

            def once() -> None:
                headers = {"Idempotency-Key": str(uuid.uuid4()), "Content-Type": "application/json"}
                op = client.post(path, content=raw, headers=headers).json()
                while op["status"] not in TERMINAL:
                    time.sleep(POLL_S)
                    op = client.get(f"{path}/{op['id']}").json()
                assert op["status"] == TERMINAL[0], op

            return median_ms(once, repeats)
    finally:
        proc.terminate()
        proc.wait(10)


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    return (
        f"{os.cpu_count()} CPUs (nproc), {cpu}, Python {platform.python_version()},"
        f" 1-min load average {load} when the run started"
    )


def render(rows: list[dict[str, Any]], repeats: int, machine_line: str) -> str:
    lines = [
        START,
        "## Emulator: forward-backward submit -> COMPLETED",
        "",
        f"Machine: {machine_line}. Vocabulary {VOCAB:,} ({MODEL}), GRPO loss,"
        f" median of {repeats} runs (ms)."
        " Command: `.venv/bin/python benchmarks/bench_emulator.py`.",
        "",
        "Stages are measured in isolation: *decode* = `orjson.loads` of the body; *hash* = the"
        " idempotency hash; *validation* = schema + semantic rules into arrays; *math* = policy"
        " forward, loss, backward and result encoding; *storage* = PENDING row, RUNNING, result"
        " and gradient sum (with a state dir: fsynced SQLite WAL commits and the `.npz` gradient"
        " file). *Submit -> COMPLETED* is measured over loopback HTTP (uvicorn, httpx, polling"
        " without sleep); *server overhead* is that minus the math.",
        "",
        "| batch | state | body MB | decode | hash | validation | math | storage"
        " | submit -> COMPLETED | server overhead |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['shape']} | {r['state']} | {r['body_mb']:.2f} | {r['decode']:.2f}"
            f" | {r['hash']:.2f} | {r['validation']:.2f} | {r['math']:.2f} | {r['storage']:.2f}"
            f" | {r['e2e']:.2f}"
            f" | {r['e2e'] - r['math']:.2f} |"
        )
    lines += ["", END]
    return "\n".join(lines)


def write_section(section: str) -> None:
    text = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    if START in text and END in text:
        before, rest = text.split(START, 1)
        _, after = rest.split(END, 1)
        text = before + section + after
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs alone")
    args = parser.parse_args(argv)
    rows = []
    started_on = machine()
    for n, length in SHAPES:
        body = grpo_body(n, length)
        repeats = args.repeats if n * length < 100_000 else max(3, args.repeats // 2)
        for state in ("memory", "state dir"):
            with tempfile.TemporaryDirectory() as tmp:
                state_dir = tmp if state == "state dir" else None
                row: dict[str, Any] = {"shape": f"{n} x {length}", "state": state}
                row.update(stage_times(body, repeats, state_dir))
            with tempfile.TemporaryDirectory() as tmp:
                row["e2e"] = end_to_end_ms(body, repeats, tmp if state == "state dir" else None)
            rows.append(row)
            print(row, file=sys.stderr, flush=True)
    section = render(rows, args.repeats, started_on)
    print(section)
    if not args.no_write:
        write_section(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
