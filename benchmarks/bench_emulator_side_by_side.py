"""The emulator of this checkout against another checkout's, side by side over loopback HTTP.

    .venv/bin/python -m benchmarks.bench_emulator_side_by_side OTHER_ROOT [--rounds 60]

``OTHER_ROOT`` is the root of another checkout of this repository (``git worktree add --detach
/tmp/old REV``). One emulator per version runs in its own process (``python -m
together_rl_emulator``, uvicorn, in memory), the other's selected by ``PYTHONPATH`` (its
``emulator``, ``generated`` and root first; each process reports the package it imported). Each
round times every case once on each version, the order flipped every other round, after one
untimed round:

- *fb 1 x 16* and *fb 64 x 2048*: a GRPO forward-backward (``bench_emulator.grpo_body``, seed 0)
  submit -> COMPLETED on the server's clock (``finished_at`` minus the client's time before the
  POST; the client polls every 20 ms), as the emulator table does;
- *lifecycle*: create model resources and a session, stop both (client wall time);
- *400 schema*: a forward-backward without ``chunks`` (client wall time; the 400 is checked).

Prints medians (ms), quartiles and the ratio this / other as JSON; no table is written
(docs/benchmarks.md quotes a run with its command and load).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import orjson

from benchmarks._emulator_process import emulator_process
from benchmarks.bench_emulator import LIGHT_POLL_S, MODEL, TERMINAL, grpo_body

__all__ = ["main"]

ROOT = Path(__file__).resolve().parent.parent
KEY = "bench"
START = (
    "import sys, together_rl_emulator; print('package', together_rl_emulator.__file__, "
    "flush=True); from together_rl_emulator.__main__ import main; sys.exit(main())"
)


@contextlib.contextmanager
def emulator(root: Path) -> Iterator[httpx.Client]:
    """An emulator of the checkout at ``root``, and a client of it."""
    paths = [root / "emulator", root / "generated", root / "wrapper", root]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, paths))}
    launcher = [sys.executable, "-c", START]
    with emulator_process("--api-key", KEY, env=env, launcher=launcher) as (base_url, lines):
        package = next(line.split()[1] for line in lines if line.startswith("package "))
        if not Path(package).resolve().is_relative_to(root.resolve()):
            raise RuntimeError(f"{root}'s emulator imported {package}")
        headers = {"Authorization": f"Bearer {KEY}"}
        with httpx.Client(base_url=base_url, headers=headers, timeout=120) as client:
            yield client


def cases(client: httpx.Client) -> dict[str, Callable[[], float]]:
    """Every case against one emulator, each returning its time in seconds."""
    mr = client.post("/v1/rl/model-resources", json={"base_model": MODEL}).json()["id"]
    session = client.post("/v1/rl/training-sessions", json={"model_resources_id": mr}).json()
    path = f"/v1/rl/training-sessions/{session['id']}/operations/forward-backward"
    bodies = {
        "fb 1 x 16": orjson.dumps(grpo_body(1, 16)),
        "fb 64 x 2048": orjson.dumps(grpo_body(64, 2048)),
    }
    invalid = grpo_body(1, 16)
    del invalid["samples"][0]["model_input"]["chunks"]

    def post(body: bytes) -> httpx.Response:
        headers = {"Idempotency-Key": str(uuid.uuid4()), "Content-Type": "application/json"}
        return client.post(path, content=body, headers=headers)

    def completed(body: bytes) -> float:
        submitted = time.time()
        op = post(body).json()
        while op["status"] not in TERMINAL:
            time.sleep(LIGHT_POLL_S)
            op = client.get(f"{path}/{op['id']}").json()
        assert op["status"] == TERMINAL[0], op
        return (
            float(client.get(f"/_emulator/operations/{op['id']}").json()["finished_at"]) - submitted
        )

    def lifecycle() -> float:
        start = time.perf_counter()
        other = client.post("/v1/rl/model-resources", json={"base_model": MODEL}).json()["id"]
        sid = client.post("/v1/rl/training-sessions", json={"model_resources_id": other}).json()[
            "id"
        ]
        client.post(f"/v1/rl/training-sessions/{sid}/stop").raise_for_status()
        client.post(f"/v1/rl/model-resources/{other}/stop").raise_for_status()
        return time.perf_counter() - start

    def refused() -> float:
        start = time.perf_counter()
        answer = post(orjson.dumps(invalid))
        elapsed = time.perf_counter() - start
        assert answer.status_code == 400, answer.text
        return elapsed

    timed: dict[str, Callable[[], float]] = {
        name: lambda b=body: completed(b) for name, body in bodies.items()
    }
    return {**timed, "lifecycle": lifecycle, "400 schema": refused}


def quartiles(values: list[float]) -> list[float]:
    q = statistics.quantiles(values, n=4)
    return [round(q[0] * 1e3, 3), round(q[2] * 1e3, 3)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("other", type=Path, help="root of the other checkout")
    parser.add_argument("--rounds", type=int, default=60)
    args = parser.parse_args(argv)
    load = [os.getloadavg()[0]]
    with emulator(args.other) as other_client, emulator(ROOT) as this_client:
        versions = {"other": cases(other_client), "this": cases(this_client)}
        times: dict[str, dict[str, list[float]]] = {code: {} for code in versions}
        for round_ in range(args.rounds + 1):
            order = ("other", "this") if round_ % 2 == 0 else ("this", "other")
            for name in versions["this"]:
                for code in order:
                    elapsed = versions[code][name]()
                    if round_:  # the first round is untimed
                        times[code].setdefault(name, []).append(elapsed)
    load.append(os.getloadavg()[0])
    rows = {}
    for name, this in times["this"].items():
        other = times["other"][name]
        rows[name] = {
            "other_ms": round(statistics.median(other) * 1e3, 3),
            "this_ms": round(statistics.median(this) * 1e3, 3),
            "ratio": round(statistics.median(this) / statistics.median(other), 3),
            "other_p25_p75": quartiles(other),
            "this_p25_p75": quartiles(this),
        }
    print(json.dumps({"load": load, "rounds": args.rounds, "cases": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
