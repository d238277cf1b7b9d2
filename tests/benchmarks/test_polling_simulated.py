"""The realistic traces on a fake clock (`benchmarks.bench_polling_simulated`): the wrapper's
poller meets the emulator's GPU-model durations in a FIFO session, with delays drawn per seed.
No emulator runs and nothing is timed: the clock is the simulation's."""

from __future__ import annotations

import statistics

import pytest
from together_rl_emulator.cost import OperationWork, operation_seconds
from together_rl_emulator.service import KINDS

from benchmarks.bench_polling_simulated import (
    IntervalPlanner,
    SimulatedRun,
    duration,
    geometric_gets,
    minimum_gets,
    simulate,
    summary,
)
from benchmarks.bench_polling_traces import TRACES, Op, Trace

GRPO, AHEAD, MIX = TRACES


def test_a_seed_gives_the_same_run_and_another_seed_another() -> None:
    first, again, other = simulate(AHEAD, 3), simulate(AHEAD, 3), simulate(AHEAD, 4)
    assert first == again
    assert first.over_bound != other.over_bound
    assert first.kinds == [op.kind for op in AHEAD.ops()]


def test_operations_take_the_emulators_gpu_model_time() -> None:
    """A forward-backward of 64 x 144 tokens on Qwen3-8B: 0.505 s (docs/emulator.md); a sample
    reads its prompts once per completion and writes `max_tokens` per completion."""
    assert duration(Op("forward-backward", 144, 64)) == operation_seconds(
        "Qwen/Qwen3-8B", KINDS["forward-backward"].seconds, OperationWork(input_tokens=9216)
    )
    assert 0.50 < duration(Op("forward-backward", 144, 64)) < 0.51
    assert duration(Op("sample", 32, 8)) == operation_seconds(
        "Qwen/Qwen3-8B", KINDS["sample"].seconds, OperationWork(16 * 64, 32 * 64, 64)
    )


@pytest.mark.parametrize("trace", TRACES, ids=["GRPO", "submit-ahead", "10x mix"])
def test_the_realistic_traces_keep_the_guarantee_and_the_precision(trace: Trace) -> None:
    """Every operation of every run within the guarantee, max(50 ms, 50 % of its duration);
    where predictions are right (the traces' durations follow their work), the p95 lateness from
    the 5th operation within max(10 ms, 5 %) in at least 19 of 20 runs (submitting ahead, the
    5th is the third forward-backward, at a work 2-3 x below the two seen)."""
    runs = [simulate(trace, seed) for seed in range(20)]
    assert max(max(run.over_guarantee) for run in runs) <= 1.0
    assert sum(run.p95_from_5th() <= 1 for run in runs) >= 19


@pytest.mark.parametrize("trace", TRACES, ids=["GRPO", "submit-ahead", "10x mix"])
def test_no_schedule_with_the_guarantee_spends_as_few_gets_as_the_official_sdk(
    trace: Trace,
) -> None:
    """The official SDK's 0.5 s interval on the same clock: fewer GETs per operation than the
    fewest any schedule with the guarantee can spend, and it breaks the guarantee."""
    sdk = [simulate(trace, seed, planner=IntervalPlanner()) for seed in range(10)]
    assert statistics.mean(sum(r.gets) / len(r.gets) for r in sdk) < minimum_gets(trace)
    assert max(max(r.over_guarantee) for r in sdk) > 3.0


def test_the_guarantee_costs_at_least_the_geometric_schedules_gets() -> None:
    """No schedule with the guarantee spends fewer GETs on an operation than the geometric one
    (a first GET within 50 ms, each next within half the time so far), counted from when the
    loop asks for it: the floor under the wrapper's GETs per operation. Submitting ahead, an
    operation queued behind another is asked for once that one is seen done, which the
    guarantee lets be up to 50 % of its duration after it finished: by then the queued one has
    run a while, and the floor is lower than counting from each start (3.38), the wrapper's
    case, since it sees each operation within ~5 %. Above the floor, the wrapper spends its
    precision: the GETs where an operation is expected to end, and, submitting ahead, the
    second forward-backward's, whose start is known only within how late the first was seen."""
    floors = [minimum_gets(trace) for trace in TRACES]
    assert [round(f, 2) for f in floors] == [3.29, 1.94, 6.33]
    from_starts = [minimum_gets(trace, seen_late=False) for trace in TRACES]
    assert [round(f, 2) for f in from_starts] == [3.29, 3.38, 6.33]
    for trace, floor in zip(TRACES, from_starts, strict=True):
        run = simulate(trace, 0)
        assert floor <= sum(run.gets) / len(run.gets) <= 2.5 * floor


def test_the_geometric_count_starts_when_the_operation_is_asked_for() -> None:
    assert [geometric_gets(0.0, d) for d in (0.04, 0.05, 0.1, 0.5)] == [1, 1, 2, 6]
    assert geometric_gets(0.3, 0.5) == 2  # asked for 0.3 s after its start: GETs at 0.45, 0.675
    assert geometric_gets(0.6, 0.5) == 1  # done before it was asked for: one GET sees it


def test_the_summary_counts_runs_and_marks_the_counted_operations() -> None:
    trace = Trace("t", ((Op("optim-step"),),) * 6)
    runs = [
        SimulatedRun(["optim-step"] * 6, [2.0, 0.5, 0.5, 0.5, 0.5, 0.5], [1] * 6, [0.5] * 6),
        SimulatedRun(["optim-step"] * 6, [0.5, 0.5, 0.5, 0.5, 2.0, 2.0], [2] * 6, [0.25] * 6),
    ]
    head, guarantee, counts, marks, sdk = summary(trace, runs)
    assert "worst lateness over the guarantee max(50 ms, 50 % D): 0.50" in guarantee
    assert head == "t, 2 runs on a fake clock:"
    assert "within the bound in 1/2 runs" in counts
    assert "from each kind's 5th op in 1/2" in counts
    assert "1.50 GETs per op" in counts
    assert marks.endswith(": 1 0 0 0 1* 1*")
    assert "the official SDK's schedule (a GET when asked, then every 0.5 s)" in sdk
    short = summary(
        Trace("t", ((Op("optim-step"),),) * 2),
        [SimulatedRun(["optim-step"] * 2, [0.5, 0.5], [1, 1], [0.1, 0.1])],
    )
    assert "n/a (no kind has 5 ops)" in short[2]
