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

import json
import math
import statistics
import sys
from typing import Any

from benchmarks._polling_clients import (
    KEY,
    MODEL,
    TRACES,
    TS_DRIVER,
    Op,
    Runner,
    Trace,
    fixed_interval,
    run_loop,
    run_official_sdk,
    run_official_sdk_futures,
    run_typescript,
    run_wrapper,
    traces,
    wire_body,
)
from benchmarks._polling_runs import (
    FIRST_COUNTED,
    Run,
    bound,
    from_each_kinds_5th,
    matching_interval,
    per_operation_misses,
    per_operation_rows,
    percentile,
    print_per_operation,
    print_per_operation_repeats,
    print_repeats,
    realistic_emulator,
    repeat_summary,
    repeated_runs,
    run_trace,
)
from benchmarks._report import ROOT, RunInfo, Table, bench_arguments, digest, publish

__all__ = [
    "FIRST_COUNTED",
    "KEY",
    "MODEL",
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

PLOT = ROOT / "docs" / "polling_traces.png"
# The fixed poller at 10 ms: the floor of lateness a poller reaches by spending GETs (a GET
# every 10 ms), shown beside the clients, not one of them.
FLOOR = "fixed 10 ms (the floor)"
# After the side-by-side table, the wrapper alone runs each trace this many times more: whether
# it meets the 5th-operation goal is judged on their spread, not on one draw.
REPEATS = 6


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
