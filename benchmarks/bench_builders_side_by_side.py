"""The wrapper's request builders, this checkout against another copy of the wrapper, side by side.

    .venv/bin/python -m benchmarks.bench_builders_side_by_side OTHER_DIR [--rounds 5]

``OTHER_DIR`` holds an older ``together_rl`` package (for instance ``git worktree add /tmp/old
REV`` and pass ``/tmp/old/wrapper``). Each round runs one subprocess per code version in turn
(so both see the same load), each timing the builders on the same seeded payloads: a 64 x 2048
GRPO forward-backward built and encoded from ``Sample`` objects and from wire dicts of lists,
a 64-prompt sample body, and 1,000 times a GRPO, an ``AdamParams`` and a ``SamplingParams`` built
from keywords (each checks its fields against the spec), and 100 times a small forward-backward
submitted and collected over an ``httpx.MockTransport`` (the wrapper's own cost of a POST and a
GET: building, retry loop, reading). Prints the medians per version and their ratio (this /
other) as JSON; no table is written (docs/benchmarks.md quotes a run with its command and load).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

__all__ = ["main"]

ROOT = Path(__file__).resolve().parent.parent
CASES = ("fb_from_samples", "fb_from_wire_lists", "sample_body", "params_x1000", "operation_x100")
#: run inside each version's interpreter: only names both versions have
TIMING = """
import json, time
import numpy as np, orjson
import httpx
from together_rl import AdamParams, Client, Sample, SamplingParams, losses
try:
    from together_rl.wire import build_forward_backward, build_sample, encode_body
except ImportError:  # a copy older than together_rl.wire: the same functions, in _bodies
    from together_rl._bodies import build_forward_backward, build_sample, encode_body

rng = np.random.default_rng(0)
samples = [
    Sample.from_completion(rng.integers(0, 150_000, 256), rng.integers(0, 150_000, 1793),
                           logprobs=-rng.random(1793), advantages=0.5)
    for _ in range(64)
]
wire = [orjson.loads(orjson.dumps(s.to_wire(), option=orjson.OPT_SERIALIZE_NUMPY)) for s in samples]
prompts = [rng.integers(0, 150_000, 256).tolist() for _ in range(64)]
loss = losses.GRPO(clip_low_threshold=0.8, clip_high_threshold=1.2)
running = {"id": "op-1", "status": "TRAINING_OPERATION_STATUS_RUNNING"}
done = {**running, "status": "TRAINING_OPERATION_STATUS_COMPLETED",
        "output": {"loss": 0.5, "metrics": {}, "loss_fn_outputs": []}}
transport = httpx.MockTransport(
    lambda request: httpx.Response(200, json=running if request.method == "POST" else done))
client = Client(api_key="k", base_url="http://mock", transport=transport, sleep=lambda s: None)
session = client.session("s-1")  # no sleeping: the wrapper's own cost only
small = [Sample.from_completion([1, 2, 3], [4, 5], logprobs=[-0.1, -0.2], advantages=0.5)]
cases = {
    "fb_from_samples": lambda: encode_body(build_forward_backward(samples, loss)),
    "fb_from_wire_lists": lambda: encode_body(build_forward_backward(wire, loss)),
    "sample_body": lambda: encode_body(build_sample(prompts, num_samples=4)),
    "params_x1000": lambda: [
        (losses.GRPO(clip_low_threshold=0.8, beta=0.0, agg_type="token_mean"),
         AdamParams(learning_rate=1e-4, grad_clip_norm=1.0),
         SamplingParams(max_tokens=64, temperature=1.0, seed=7))
        for _ in range(1000)
    ],
    "operation_x100": lambda: [
        session.forward_backward(small, loss).result() for _ in range(100)
    ],
}
out = {}
for name, case in cases.items():
    case()
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        case()
        times.append(time.perf_counter() - start)
    out[name] = times
print(json.dumps(out))
"""


def run(path: str, repeats: int) -> dict[str, list[float]]:
    env = {**os.environ, "PYTHONPATH": path} if path else dict(os.environ)
    source = TIMING.replace("REPEATS", str(repeats))
    done = subprocess.run(
        [sys.executable, "-c", source], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    result: dict[str, list[float]] = json.loads(done.stdout.splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("other", type=Path, help="folder holding the other together_rl package")
    parser.add_argument("--rounds", type=int, default=5, help="subprocesses per version")
    parser.add_argument("--repeats", type=int, default=5, help="timings per case per subprocess")
    args = parser.parse_args(argv)
    times: dict[str, dict[str, list[float]]] = {"other": {}, "this": {}}
    load = [os.getloadavg()[0]]
    for _ in range(args.rounds):
        for code, path in (("other", str(args.other)), ("this", "")):
            for case, values in run(path, args.repeats).items():
                times[code].setdefault(case, []).extend(values)
    load.append(os.getloadavg()[0])
    rows = {}
    for case in CASES:
        other, this = (statistics.median(times[code][case]) for code in ("other", "this"))
        rows[case] = {"other_ms": other * 1e3, "this_ms": this * 1e3, "ratio": this / other}
    print(json.dumps({"load": load, "rounds": args.rounds, "cases": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
