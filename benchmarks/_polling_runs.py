"""Measuring a client on a trace against the realistic emulator: the lateness of each
operation (from the emulator's COMPLETED to the client holding the result), its duration, the
GETs the emulator counted; the repeated runs of the wrapper alone and their summaries."""

from __future__ import annotations

import contextlib
import math
import os
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from benchmarks._emulator_process import emulator_process
from benchmarks._polling_clients import KEY, MODEL, Runner, Trace, run_wrapper, traces

__all__ = [
    "FIRST_COUNTED",
    "Run",
    "bound",
    "from_each_kinds_5th",
    "matching_interval",
    "per_operation_misses",
    "per_operation_rows",
    "percentile",
    "print_per_operation",
    "print_per_operation_repeats",
    "print_repeats",
    "realistic_emulator",
    "repeat_summary",
    "repeated_runs",
    "run_trace",
]

# --- measuring ------------------------------------------------------------------------------


# The traces' goal counts a trace's operations from its 5th (this index) on.
FIRST_COUNTED = 4


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
