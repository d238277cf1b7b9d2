"""The polling guarantee against the realistic emulator, side by side with a plain 5 ms loop.

    .venv/bin/python -m benchmarks.bench_polling_emulator [--quick] [--no-write]

`together-rl-emulator --timing realistic` on loopback (Qwen/Qwen3-8B). Two sequences, each on a
fresh session and a fresh client every run:
- *alternating*: 12 forward-only forward-backwards, 1 sample x 8 tokens then 8 x 2048 tokens
  (about 1 ms and 0.9 s), the sequence whose large operations a poller that extrapolated the
  small one's time waited 20 s for. The wrapper and a plain loop that GETs every 5 ms run it in
  turn, `ROUNDS` times each; the goal: the wrapper's wall time at most 1.10 x the loop's + 0.5 s.
- *fixed 1.3 s*: 4 forward-backwards of 64 x 372 tokens (1.30 s each), the wrapper alone; the
  goal: operations 2-4 seen within 10 % of their duration.
Lateness: from the emulator's COMPLETED to the client holding the result. Writes its section of
docs/benchmarks.md.
"""

from __future__ import annotations

import json
import statistics
import sys
from typing import Any

from benchmarks._polling_clients import MODEL, Op, Runner, Trace, fixed_interval, run_wrapper
from benchmarks._polling_runs import Run, realistic_emulator, run_trace
from benchmarks._report import RunInfo, Table, bench_arguments, digest, publish

__all__ = ["ALTERNATING", "FIXED", "checked_facts", "main", "measure"]

ALTERNATING = Trace(
    "alternating 1 x 8 and 8 x 2048 tokens, forward only",
    tuple(
        (Op("forward-backward", 2048, 8, True) if k % 2 else Op("forward-backward", 8, 1, True),)
        for k in range(12)
    ),
)
FIXED = Trace("fixed 1.3 s (64 x 372 tokens)", ((Op("forward-backward", 372, 64),),) * 4)
LOOP = "GET every 5 ms"
CLIENTS: dict[str, Runner] = {"wrapper": run_wrapper, LOOP: fixed_interval(0.005)}


def measure(rounds: int) -> tuple[dict[str, list[Run]], list[Run]]:
    """The alternating sequence, each client in turn ``rounds`` times; then the fixed one, the
    wrapper alone ``rounds`` times."""
    alternating: dict[str, list[Run]] = {name: [] for name in CLIENTS}
    with realistic_emulator() as base_url:
        for _ in range(rounds):
            for name, runner in CLIENTS.items():
                alternating[name].append(run_trace(base_url, name, runner, ALTERNATING))
        fixed = [run_trace(base_url, "wrapper", run_wrapper, FIXED) for _ in range(rounds)]
    return alternating, fixed


def _ms(values: list[float]) -> str:
    return " / ".join(f"{1000 * v:.0f}" for v in values)


def rows(alternating: dict[str, list[Run]], fixed: list[Run]) -> list[list[str]]:
    out = []
    loop = statistics.median(r.seconds for r in alternating[LOOP])
    for name, runs in alternating.items():
        seconds = statistics.median(r.seconds for r in runs)
        gets = statistics.mean(r.gets / len(r.lateness) for r in runs)
        goal = "" if name == LOOP else ("met" if seconds <= 1.10 * loop + 0.5 else "NOT met")
        worst = max(
            late / max(0.05, 0.5 * d)
            for r in runs
            for late, d in zip(r.lateness, r.durations, strict=True)
        )
        out.append([
            ALTERNATING.name, name, " / ".join(f"{r.seconds:.2f}" for r in runs),
            f"{seconds:.2f}", f"{gets:.2f}", _ms(max(r.lateness) for r in runs),
            f"{worst:.2f}", goal + (f" ({seconds / loop:.2f} x)" if goal else ""),
        ])  # fmt: skip
    for run in fixed:
        late = [late / d for late, d in zip(run.lateness, run.durations, strict=True)][1:]
        out.append([
            FIXED.name, "wrapper (fresh)", f"{run.seconds:.2f}", "",
            f"{run.gets / len(run.lateness):.2f}", _ms(run.lateness), "",
            ("met" if max(late) <= 0.10 else "NOT met") + f" (ops 2-4: {max(late):.1%} late)",
        ])  # fmt: skip
    return out


def checked_facts(key: str, quick: bool = False) -> dict[str, Any]:
    assert key == "polling_emulator.side_by_side", key
    return {
        "model": MODEL,
        "rounds": rounds_of(quick),
        "sequences": {
            t.name: digest(" ".join(op.describe() for op in t.ops()).encode())
            for t in (ALTERNATING, FIXED)
        },
        "clients": {
            "wrapper": f"{run_wrapper.__module__}.{run_wrapper.__qualname__}",
            LOOP: f"{fixed_interval.__module__}.{fixed_interval.__qualname__}(0.005)",
        },
    }


def rounds_of(quick: bool) -> int:
    return 1 if quick else 3


def main(argv: list[str] | None = None) -> int:
    args = bench_arguments(__doc__, quick="one round instead of 3").parse_args(argv)
    if args.facts:
        print(json.dumps(checked_facts(args.facts, args.quick)))
        return 0
    command = ".venv/bin/python -m benchmarks.bench_polling_emulator"
    run = RunInfo(command + (" --quick" if args.quick else ""))
    alternating, fixed = measure(rounds_of(args.quick))
    table = Table(
        key="polling_emulator.side_by_side",
        title="The guarantee against the emulator: alternating sizes, and a fresh session",
        payload=(
            f"{MODEL} on `together-rl-emulator --timing realistic` (127.0.0.1, a subprocess). "
            f"*{ALTERNATING.name}*: 12 forward-only forward-backwards (about 1 ms and 0.9 s), "
            f"the wrapper and a plain loop (POST, then a GET every 5 ms) in turn, "
            f"{rounds_of(args.quick)} runs each, a fresh session (and client) per run. "
            f"*{FIXED.name}*: 4 forward-backwards of 1.30 s, a fresh wrapper client per run."
        ),
        columns=[
            "sequence",
            "client",
            "wall s per run",
            "median s",
            "GETs per op",
            "max lateness per run ms",
            "worst / max(50 ms, 50 % D)",
            "goal",
        ],
        rows=rows(alternating, fixed),
        facts=checked_facts("polling_emulator.side_by_side", args.quick),
        align="l l r r r r r l",
        notes=[
            "Goals: the alternating sequence in at most 1.10 x the 5 ms loop's median wall time "
            "+ 0.5 s; the fixed one's operations 2-4 within 10 % of their duration. Lateness: "
            "from the emulator's COMPLETED (`finished_at`) to the client holding the result.",
        ],
    )
    section = "## Polling against the emulator\n\n" + table.render(run.finish())
    return publish("polling-emulator", section, args.no_write)


if __name__ == "__main__":
    sys.exit(main())
