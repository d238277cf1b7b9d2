"""Wrapper benchmark: the together_rl wrapper against the official SDK (together==3.1.1).

    .venv/bin/python benchmarks/bench_wrapper.py [--quick] [--no-write]

Starts the emulator as a uvicorn subprocess on loopback (one per --op-latency-ms value) and
measures, side by side in one run:
1. polling: median time from operation completion to result in the caller's hands, and GETs per
   operation (from /_emulator/stats), at D = 20, 200, 1300 ms;
2. a 64 x 2048 GRPO request encoded and a response with loss_fn_outputs decoded: wrapper vs plain
   orjson on the same dicts vs the official SDK's raw `operations.forward_backward`;
3. pipelining at D = 200 ms: steps/s with submit-ahead vs strictly sequential.
Writes its section of docs/benchmarks.md between the wrapper markers.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import re
import socket
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
from together_rl import Client, Sample, losses
from together_rl._responses import interpret_operation
from together_rl._wire import build_forward_backward, encode_body

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
START, END = "<!-- wrapper:start -->", "<!-- wrapper:end -->"
KEY = "bench-key"
FB_GET = "GET /v1/rl/training-sessions/{session_id}/operations/forward-backward/{operation_id}"
FB_POST = "POST /v1/rl/training-sessions/{session_id}/operations/forward-backward"
LOSS = losses.GRPO(clip_low_threshold=0.8, clip_high_threshold=1.2)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def emulator(op_latency_ms: int) -> Iterator[str]:
    port = free_port()
    exe = Path(sys.executable).parent / "together-rl-emulator"
    command = [
        str(exe),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--api-key",
        KEY,
        "--op-latency-ms",
        str(op_latency_ms),
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 30
        for line in process.stdout:
            if "listening on" in line:
                break
            if time.monotonic() > deadline:
                raise RuntimeError("emulator did not start")
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def stats(base_url: str) -> dict[str, Any]:
    response = httpx.get(base_url + "/_emulator/stats", headers={"Authorization": f"Bearer {KEY}"})
    response.raise_for_status()
    data: dict[str, Any] = response.json()
    return data


def small_batch(n: int = 4) -> list[Sample]:
    return [
        Sample.from_completion([1, 2, 3, 4], [5, 6, 7, 8], logprobs=[-1.0] * 4, advantages=0.5)
        for _ in range(n)
    ]


def gets_posts(base_url: str) -> tuple[int, int]:
    requests = stats(base_url)["requests"]
    return int(requests.get(FB_GET, 0)), int(requests.get(FB_POST, 0))


# --------------------------------------------------------------------------- 1. polling


def polling(d_ms: int, ops: int) -> dict[str, Any]:
    d = d_ms / 1000.0
    with emulator(d_ms) as base_url:
        client = Client(KEY, base_url)
        resources = client.model_resources.create("emulator/tiny-1k")
        session = client.sessions.create(model_resources_id=resources.id)
        batch = small_batch()
        for _ in range(2):  # warm-up: the first operations teach the schedule
            session.forward_backward(batch, LOSS).result()
        g0, p0 = gets_posts(base_url)
        wrapper_overheads = []
        for _ in range(ops):
            start = time.perf_counter()
            session.forward_backward(batch, LOSS).result()
            wrapper_overheads.append(time.perf_counter() - start - d)
        g1, p1 = gets_posts(base_url)
        wrapper_gets = (g1 - g0) / (p1 - p0)

        sdk_overheads, sdk_gets = sdk_polling(base_url, resources.id, batch, d, ops)
        client.close()
    return {
        "d": d_ms,
        "wrapper_ms": 1000 * statistics.median(wrapper_overheads),
        "wrapper_gets": wrapper_gets,
        "sdk_ms": 1000 * statistics.median(sdk_overheads),
        "sdk_gets": sdk_gets,
    }


def polling_warmup(d_ms: int, ops: int = 4, sessions: int = 3) -> dict[str, Any]:
    """The first `ops` operations of fresh sessions against the emulator at `--op-latency-ms
    d_ms`, one after the other: the first session of a fresh client (no history at all) and
    `sessions - 1` more sessions of the same client (it has learned from the sessions before).
    Per session: GETs per operation over its first `ops`, and each operation's overhead (wall
    time minus D: how late it was collected, plus the POST and the last GET)."""
    d = d_ms / 1000.0
    rows: list[dict[str, Any]] = []
    with emulator(d_ms) as base_url:
        client = Client(KEY, base_url)
        resources = client.model_resources.create("emulator/tiny-1k")
        batch = small_batch()
        for index in range(sessions):
            session = client.sessions.create(model_resources_id=resources.id)
            gets, overheads = [], []
            for _ in range(ops):
                g0, _ = gets_posts(base_url)
                start = time.perf_counter()
                session.forward_backward(batch, LOSS).result()
                overheads.append(time.perf_counter() - start - d)
                g1, _ = gets_posts(base_url)
                gets.append(g1 - g0)
            rows.append(
                {
                    "session": "fresh client" if index == 0 else f"session {index + 1}",
                    "gets_per_op": sum(gets) / ops,
                    "gets": gets,
                    "overhead_ms": [round(1000 * o, 1) for o in overheads],
                }
            )
        client.close()
    return {"d": d_ms, "bound_ms": max(10.0, 0.05 * d_ms), "sessions": rows}


def sdk_polling(
    base_url: str, resources_id: str, batch: list[Sample], d: float, ops: int
) -> tuple[list[float], float]:
    from together.post_training import SessionClient

    with contextlib.redirect_stdout(open(os.devnull, "w")):
        sdk = SessionClient.create(model_resources_id=resources_id, api_key=KEY, base_url=base_url)
    wire = [s.to_wire() for s in batch]
    wire = [orjson.loads(orjson.dumps(s, option=orjson.OPT_SERIALIZE_NUMPY)) for s in wire]
    sdk.trainer.forward_backward(samples=wire, loss=LOSS.to_wire())
    g0, p0 = gets_posts(base_url)
    overheads = []
    for _ in range(ops):
        start = time.perf_counter()
        sdk.trainer.forward_backward(samples=wire, loss=LOSS.to_wire())
        overheads.append(time.perf_counter() - start - d)
    g1, p1 = gets_posts(base_url)
    with contextlib.redirect_stdout(open(os.devnull, "w")):
        sdk.stop()
    return overheads, (g1 - g0) / (p1 - p0)


# --------------------------------------------------------------------------- 2. large batches


def big_data(
    batch: int = 64, length: int = 2048
) -> tuple[list[dict[str, Any]], list[Sample], bytes]:
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


def best_of(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def side_by_side(fns: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float]:
    """Median ms of each function, run in turn (one repetition of each per round)."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: 1000 * statistics.median(t) for name, t in times.items()}


def large_batches(repeat: int, sdk_repeat: int) -> dict[str, float]:
    dicts, samples, response = big_data()
    loss = LOSS.to_wire()
    body = {"samples": dicts, "loss": loss}
    out: dict[str, float] = {
        "request_mb": len(orjson.dumps(body)) / 1e6,
        "response_mb": len(response) / 1e6,
    }
    # Interleaved, one repetition of each in turn, so the noise of a shared machine hits the
    # plain-orjson baseline and the wrapper alike and their ratio stays meaningful.
    timed = side_by_side(
        {
            "orjson_encode": lambda: orjson.dumps(body),
            "orjson_decode": lambda: orjson.loads(response),
            "wrapper_encode_dicts": lambda: encode_body(build_forward_backward(dicts, LOSS)),
            "wrapper_encode_samples": lambda: encode_body(build_forward_backward(samples, LOSS)),
            "wrapper_decode": lambda: interpret_operation(orjson.loads(response)),
        },
        repeat,
    )
    out.update(timed)

    def mock(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=response, headers={"content-type": "application/json"})

    # Inline, as the official SDK's raw method sends it: the comparison stays like for like.
    client = Client(
        KEY, "http://mock.test", transport=httpx.MockTransport(mock), upload_threshold=None
    )
    session = client.session("s1")
    out["wrapper_call"] = best_of(lambda: session.forward_backward(dicts, LOSS).result(), repeat)

    from together import Together

    sdk = Together(
        api_key=KEY,
        base_url="http://mock.test",
        http_client=httpx.Client(transport=httpx.MockTransport(mock)),
    )
    out["sdk_call"] = best_of(
        lambda: sdk.post_training.operations.forward_backward(
            "s1", idempotency_key="k", samples=dicts, loss=loss
        ),
        sdk_repeat,
    )  # type: ignore[arg-type]
    return out


# --------------------------------------------------------------------------- 3. pipelining


def pipelining(steps: int) -> dict[str, float]:
    with emulator(200) as base_url:
        client = Client(KEY, base_url)
        resources = client.model_resources.create("emulator/tiny-1k")
        session = client.sessions.create(model_resources_id=resources.id)
        batch = small_batch()
        for _ in range(2):
            session.forward_backward(batch, LOSS).result()
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
        client.close()
    return {"sequential": sequential, "ahead": ahead}


# --------------------------------------------------------------------------- report


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return (
        f"{cpu}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}"
    )


def render(
    poll: list[dict[str, Any]],
    big: dict[str, float],
    pipe: dict[str, float],
    command: str,
    seconds: float,
) -> str:
    lines = [
        "## Wrapper (`together_rl`) vs the official SDK (`together==3.1.1`)",
        "",
        f"Command: `{command}` ({seconds:.0f} s). Machine: {machine()}.",
        "Emulator: `together-rl-emulator` as a uvicorn subprocess on 127.0.0.1, one per D.",
        "",
        "### 1. Polling (operations of D ms, GRPO, 4 x 8 tokens, sequential calls)",
        "",
        "Overhead = median of (call duration − D): POST, emulator compute and the wait between "
        "completion and the GET that sees it. GETs per operation from `/_emulator/stats`, after "
        "2 warm-up operations.",
        "",
        "| D (ms) | wrapper overhead (ms) | wrapper GETs/op "
        "| SDK Trainer overhead (ms) | SDK GETs/op |",
        "|---:|---:|---:|---:|---:|",
    ]
    for row in poll:
        lines.append(
            f"| {row['d']} | {row['wrapper_ms']:.1f} | {row['wrapper_gets']:.2f} | "
            f"{row['sdk_ms']:.1f} | {row['sdk_gets']:.2f} |"
        )
    enc_ratio = big["wrapper_encode_dicts"] / big["orjson_encode"]
    total_ratio = (big["wrapper_encode_dicts"] + big["wrapper_decode"]) / (
        big["orjson_encode"] + big["orjson_decode"]
    )
    lines += [
        "",
        f"### 2. 64 x 2048 GRPO request ({big['request_mb']:.1f} MB) and response with "
        f"loss_fn_outputs ({big['response_mb']:.1f} MB), median ms",
        "",
        "| step | ms | vs plain orjson |",
        "|---|---:|---:|",
        f"| plain `orjson.dumps` of the wire dicts | {big['orjson_encode']:.1f} | 1.00x |",
        f"| wrapper: check + encode the same dicts | {big['wrapper_encode_dicts']:.1f} | "
        f"{enc_ratio:.2f}x |",
        f"| wrapper: check + encode from `Sample` builders (numpy) | "
        f"{big['wrapper_encode_samples']:.1f} | "
        f"{big['wrapper_encode_samples'] / big['orjson_encode']:.2f}x |",
        f"| plain `orjson.loads` of the response | {big['orjson_decode']:.1f} | 1.00x |",
        f"| wrapper: decode into numpy float32 arrays | {big['wrapper_decode']:.1f} | "
        f"{big['wrapper_decode'] / big['orjson_decode']:.2f}x |",
        f"| wrapper encode + decode vs orjson encode + decode | | {total_ratio:.2f}x |",
        f"| wrapper full call (`forward_backward(...).result()`, MockTransport) | "
        f"{big['wrapper_call']:.1f} | |",
        f"| SDK raw `operations.forward_backward` (MockTransport) | {big['sdk_call']:.1f} | "
        f"SDK / wrapper = {big['sdk_call'] / big['wrapper_call']:.0f}x |",
        "",
        "### 3. Pipelining at D = 200 ms (wrapper)",
        "",
        "| loop | steps/s |",
        "|---|---:|",
        f"| sequential (`forward_backward(...).result()` each step) | {pipe['sequential']:.2f} |",
        f"| submit-ahead (next step submitted before reading the result) | {pipe['ahead']:.2f} |",
        "",
        "The emulator runs a session's operations one at a time, so submit-ahead can only hide "
        "the client's round trips (POST, the GET that collects), not D itself.",
    ]
    return "\n".join(lines)


def write_section(section: str) -> None:
    text = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    block = f"{START}\n{section}\n{END}"
    if START in text and END in text:
        text = re.sub(
            re.escape(START) + r".*?" + re.escape(END), lambda _: block, text, flags=re.DOTALL
        )
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    DOC.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    began = time.perf_counter()
    ops = {20: 15, 200: 10, 1300: 5} if not args.quick else {20: 5, 200: 3, 1300: 2}
    poll = [polling(d, n) for d, n in ops.items()]
    big = large_batches(repeat=15 if not args.quick else 3, sdk_repeat=2 if not args.quick else 1)
    pipe = pipelining(12 if not args.quick else 4)
    command = "python benchmarks/bench_wrapper.py" + (" --quick" if args.quick else "")
    section = render(poll, big, pipe, command, time.perf_counter() - began)
    print(section)
    if not args.no_write:
        write_section(section)


if __name__ == "__main__":
    main()
