"""The realistic traces on a fake clock: the wrapper's poller without the machine's noise.

    .venv/bin/python -m benchmarks.bench_polling_simulated [--seeds N] [--quick]

`bench_polling_traces` runs the wrapper against the realistic emulator, where one run of a
trace says little (at one commit the submit-ahead loop's p95 ranged 1.3-12.8 bounds over 6
runs) and a handful of runs takes minutes. Here the same three traces meet the wrapper's
`PollPlanner` alone, on a clock the simulation moves: operations take the emulator's GPU-model
time on Qwen/Qwen3-8B (the body read as the emulator reads it, timed as `--timing realistic`
times it, 1.00-1.01 x as the emulator holds them) in a FIFO session that starts each when the
one ahead is done; each POST takes 2-17 ms (a forward-backward's body is the largest) and the
operation starts 1-5 ms before its answer; a GET goes out up to 2 ms after the planner asked
for it and takes 1-2 ms; the client collects in submission order, as the real bench's loops do.
Each seed draws those delays afresh, so N seeds give N runs of each trace in a few seconds,
reproducible to the bit.

Per trace it prints the runs whose p95 from the 5th operation is within the bound max(10 ms,
5 % of D) (the traces' goal, as `bench_polling_traces` counts it), the same counted from each
operation kind's 5th operation, the GETs per operation, and for each operation the runs in
which it was over the bound. Nothing is written: a change to the poller is judged here on
many runs, then confirmed against the emulator (`bench_polling_traces --repeat N`), since the
simulation leaves out what a real run adds (a loaded machine's timers, the server's own time).
"""

from __future__ import annotations

import argparse
import functools
import itertools
import math
import random
import statistics
import sys
from dataclasses import dataclass, field
from typing import Any

from together_rl import PollPolicy
from together_rl.wire import PollPlanner, operation_work
from together_rl_emulator.base import CATALOG
from together_rl_emulator.checking import validate_forward_backward, validate_sample
from together_rl_emulator.cost import Timing
from together_rl_emulator.service import kind_named

from benchmarks.bench_polling_traces import (
    FIRST_COUNTED,
    MODEL,
    Op,
    Trace,
    bound,
    from_each_kinds_5th,
    percentile,
    run_loop,
    traces,
    wire_body,
)

__all__ = [
    "SDK_INTERVAL",
    "IntervalPlanner",
    "SimulatedRun",
    "duration",
    "geometric_gets",
    "main",
    "minimum_gets",
    "operations",
    "simulate",
    "summary",
]

# A POST's round trip by kind (uniform, s): a forward-backward's body takes the server longest.
POST_SECONDS = {
    "forward-backward": (0.006, 0.017),
    "sample": (0.002, 0.005),
    "optim-step": (0.002, 0.006),
}
STARTS_BEFORE_ANSWER = (0.001, 0.005)  # the operation starts this long before the POST's answer
TIMER_LATE = (0.0, 0.002)  # a GET goes out this long after the planner asked for it
GET_SECONDS = (0.001, 0.002)  # a GET's round trip; the server answers mid-way
HELD = (1.0, 1.01)  # how long the emulator holds an operation, x its GPU-model time


# The official SDK's wait: a GET when the result is asked for, then one every 0.5 s
# (together==3.1.1 post_training/_operations.py async_wait_for_operation, its
# DEFAULT_OPERATION_INTERVAL, as its Trainer and TrainingClient futures call it).
SDK_INTERVAL = 0.5


class IntervalPlanner:
    """A fixed-interval schedule in the planner's shape (``submitted`` gives a poll with
    ``next_poll_at``, ``observe`` and ``gets``): the first GET as soon as it is asked for."""

    def __init__(self, interval: float = SDK_INTERVAL) -> None:
        self.interval = interval

    def submitted(self, kind: str, now: float, work: float = 0.0) -> IntervalPlanner._Poll:
        return IntervalPlanner._Poll(self.interval)

    class _Poll:
        def __init__(self, interval: float) -> None:
            self.interval, self.gets, self.last = interval, 0, -math.inf

        def next_poll_at(self) -> float:
            return self.last + self.interval

        def observe(self, *, sent_at: float, done: bool) -> None:
            self.gets, self.last = self.gets + 1, sent_at


# How the emulator reads a body of each kind with tokens (others carry no work it times).
READ = {"sample": validate_sample, "forward-backward": validate_forward_backward}


def duration(op: Op, body: dict[str, Any] | None = None) -> float:
    """How long the emulator (`--timing realistic`) holds ``op`` on the traces' model, from its
    body (``wire_body``'s) read as the emulator reads it."""
    body = wire_body(op, random.Random(1)) if body is None else body
    read = READ.get(op.kind)
    request = None if read is None else read(body, CATALOG[MODEL].vocab_size)
    kind = kind_named(op.kind)
    return Timing("realistic").predicted_seconds(MODEL, kind.seconds, kind.work(request))


@functools.cache
def operations(trace: Trace) -> tuple[tuple[float, float], ...]:
    """Each operation of ``trace``: the work the wrapper tells its planner, and its duration;
    the same for every seed, so computed once."""
    bodies = random.Random(1)
    out = []
    for op in trace.ops():
        body = wire_body(op, bodies)
        out.append((operation_work(body), duration(op, body)))
    return tuple(out)


@dataclass
class SimulatedRun:
    """One trace's operations as one seed's run saw them, in submission order."""

    kinds: list[str] = field(default_factory=list)
    over_bound: list[float] = field(default_factory=list)  # lateness / max(10 ms, 5 % D)
    gets: list[int] = field(default_factory=list)
    over_guarantee: list[float] = field(default_factory=list)  # / max(50 ms, 50 % D)

    def p95_from_5th(self) -> float:
        return percentile(self.over_bound[FIRST_COUNTED:], 0.95)

    def p95_from_each_kinds_5th(self) -> float:
        return percentile(from_each_kinds_5th(self.kinds, self.over_bound), 0.95)


def simulate(
    trace: Trace, seed: int, policy: PollPolicy | None = None, planner: Any = None
) -> SimulatedRun:
    """``trace`` collected by a fresh planner on a fake clock, the delays drawn from ``seed``
    (``planner``: another schedule in its shape, such as :class:`IntervalPlanner`)."""
    rng = random.Random(seed)
    planner = PollPlanner(policy) if planner is None else planner
    now = free = 0.0  # the client's clock; when the session's queue is next free
    out: dict[int, tuple[str, float, float, float, int]] = {}
    Flight = tuple[int, Op, Any, float, float]
    known = operations(trace)

    def submit(index: int, op: Op) -> Flight:
        nonlocal now, free
        work, seconds = known[index]
        answered = now + rng.uniform(*POST_SECONDS[op.kind])
        start = max(answered - rng.uniform(*STARTS_BEFORE_ANSWER), free)
        held = seconds * rng.uniform(*HELD)
        free, now = start + held, answered
        return index, op, planner.submitted(op.kind, now, work), free, held

    def collect(flight: Flight) -> None:
        nonlocal now
        index, op, poll, done_at, held = flight
        asked = now
        while True:
            sent = max(poll.next_poll_at() + rng.uniform(*TIMER_LATE), now)
            trip = rng.uniform(*GET_SECONDS)
            done = sent + trip / 2 >= done_at
            poll.observe(sent_at=sent, done=done)
            now = sent + trip
            if done:
                break
        seen = sent + trip / 2 - max(done_at, asked)  # what the guarantee counts
        out[index] = (op.kind, now - done_at, seen, held, poll.gets)

    indices = itertools.count()  # the bench's loop, on this clock
    run_loop(trace, lambda op: submit(next(indices), op), collect, clock=lambda: now)
    run = SimulatedRun()
    for index in sorted(out):
        kind, late, seen, held, gets = out[index]
        run.kinds.append(kind)
        run.over_bound.append(late / bound(held))
        run.over_guarantee.append(seen / max(0.05, 0.5 * held))
        run.gets.append(gets)
    return run


def geometric_gets(elapsed: float, seconds: float) -> int:
    """The fewest GETs that see an operation of ``seconds`` done within its bound when polling
    starts ``elapsed`` s after it started (its start known): the first within max(50 ms, 50 %
    of ``elapsed``), each next within max(50 ms, 50 %) of the time since the start (fewer, and
    an operation done just after a GET is seen later than its bound); one when it is done."""
    at, n = elapsed, 0
    while at < seconds:
        at, n = at + max(0.05, 0.5 * at), n + 1
    return max(n, 1)


def minimum_gets(trace: Trace, seen_late: bool = True) -> float:
    """The fewest GETs per operation any schedule with the guarantee spends on ``trace`` (its
    GPU-model durations), run by its loop: a schedule that knows each start and sees each
    operation done as late as the guarantee allows, max(50 ms, 50 %) after it finished (or was
    asked for), so that an operation queued behind it is asked for as late as can be. GETs
    before an operation is asked for are none of the guarantee's business; a queued one asked
    for after it started needs only the geometric schedule's GETs from then on. ``seen_late``
    False: each operation seen as it finishes (the loop then asks for the next one at once)."""
    known = operations(trace)
    now = free = 0.0  # the loop's clock (POSTs take no time); when the session is next free
    counts: list[int] = []
    indices = itertools.count()

    def submit(op: Op) -> tuple[float, float]:
        nonlocal free
        start = max(now, free)
        free = start + known[next(indices)][1]
        return start, free

    def collect(flight: tuple[float, float]) -> None:
        nonlocal now
        start, finished = flight
        counts.append(geometric_gets(max(0.0, now - start), finished - start))
        now = max(finished, now) + (max(0.05, 0.5 * (finished - start)) if seen_late else 0.0)

    run_loop(trace, submit, collect, clock=lambda: now)
    return sum(counts) / len(counts)


def summary(trace: Trace, runs: list[SimulatedRun]) -> list[str]:
    """What ``runs`` of ``trace`` show: the goal's count, the per-kind count, GETs, and each
    operation's runs over the bound (marked where the goal counts it)."""
    n = len(runs)
    goal = [run.p95_from_5th() for run in runs]
    per_kind = [run.p95_from_each_kinds_5th() for run in runs]
    gets = statistics.mean(sum(run.gets) / len(run.gets) for run in runs)
    later = [run.gets[FIRST_COUNTED:] for run in runs if len(run.gets) > FIRST_COUNTED]
    from_5th = f"{statistics.mean(sum(g) / len(g) for g in later):.2f}" if later else "n/a"
    over = [sum(run.over_bound[i] > 1 for run in runs) for i in range(len(runs[0].over_bound))]
    marks = " ".join(f"{o}{'*' if i >= FIRST_COUNTED else ''}" for i, o in enumerate(over))
    if any(math.isnan(p) for p in per_kind):
        by_kind = "n/a (no kind has 5 ops)"
    else:
        within = sum(p <= 1 for p in per_kind)
        by_kind = f"{within}/{n} (median {statistics.median(per_kind):.2f})"
    worst = max(max(run.over_guarantee) for run in runs)
    sdk = [simulate(trace, seed, planner=IntervalPlanner()) for seed in range(n)]
    sdk_gets = statistics.mean(sum(run.gets) / len(run.gets) for run in sdk)
    sdk_worst = max(max(run.over_guarantee) for run in sdk)
    return [
        f"{trace.name}, {n} runs on a fake clock:",
        f"  worst lateness over the guarantee max(50 ms, 50 % D): {worst:.2f}; the guarantee's "
        f"fewest GETs per op {minimum_gets(trace):.2f}",
        f"  p95 from the 5th op within the bound in {sum(g <= 1 for g in goal)}/{n} runs "
        f"(median {statistics.median(goal):.2f} bounds); from each kind's 5th op in {by_kind}; "
        f"{gets:.2f} GETs per op ({from_5th} from the 5th)",
        f"  runs over the bound, op by op (* counted by the goal): {marks}",
        f"  the official SDK's schedule (a GET when asked, then every {SDK_INTERVAL} s): "
        f"{sdk_gets:.2f} GETs per op, worst lateness over the guarantee {sdk_worst:.2f}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=40, help="runs of each trace (default 40)")
    parser.add_argument("--quick", action="store_true", help="4 steps per trace instead of 8")
    args = parser.parse_args(argv)
    for trace in traces(args.quick):
        runs = [simulate(trace, seed) for seed in range(args.seeds)]
        print("\n".join(summary(trace, runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
