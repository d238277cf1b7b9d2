"""The per-operation rows of the realistic-traces benchmark (`--per-op`): what each operation
was, its duration against the GPU model's, its wait in the queue, its lateness over the bound,
and the mark on those the 5th-operation goal counts against the wrapper. No emulator runs: the
rows are computed from a run's figures."""

from __future__ import annotations

from benchmarks.bench_polling_traces import (
    Op,
    Run,
    Trace,
    from_each_kinds_5th,
    per_operation_misses,
    per_operation_rows,
    repeat_summary,
    within_in_repeats,
)


def test_each_operation_is_one_row_and_only_counted_misses_are_marked() -> None:
    ops = [Op("sample", 32, 8), Op("forward-backward", 64, 64), Op("optim-step")] * 2
    trace = Trace("t", (tuple(ops[:3]), tuple(ops[3:])))
    durations = [0.2, 0.4, 0.04, 0.1, 0.4, 0.04]
    run = Run(
        "wrapper",
        trace,
        seconds=1.0,
        gets=9,
        lateness=[0.05, 0.001, 0.002, 0.003, 0.030, 0.009],
        durations=durations,
        spans=[d + 0.002 for d in durations],
        overruns=[(op.kind, 1.0) for op in ops],
    )
    rows = per_operation_rows(run)
    assert [row[1] for row in rows] == [op.describe() for op in ops]
    assert [row[4] for row in rows] == ["2.0"] * 6  # queued: span less duration
    # 50 ms late on the 1st is over its 10 ms bound but not counted (before the 5th op);
    # 30 ms on the 5th is 1.5 x its 20 ms bound and counted; 9 ms on the 6th is within.
    assert rows[0][6] == "5.00"
    assert rows[4][6] == "1.50 *"
    assert rows[5][6] == "0.90"


def test_a_repeated_trace_is_summarised_by_the_spread_of_its_runs() -> None:
    """`--repeat N`: each run's p95 from the 5th operation over the bound, ascending, their
    median and the mean GETs per operation."""
    ops = [Op("optim-step")] * 6
    trace = Trace("t", tuple((op,) for op in ops))

    def run(late: float, gets: int) -> Run:
        durations = [0.04] * 6
        return Run("wrapper", trace, 1.0, gets, [0.0] * 4 + [late] * 2, durations,
                   durations, [(op.kind, 1.0) for op in ops])  # fmt: skip

    line = repeat_summary([run(0.030, 12), run(0.005, 6), run(0.012, 9)])
    assert line == (
        "t: p95 from the 5th op over the bound, 3 runs: 0.50 1.20 3.00 (median 1.20); "
        "1.50 GETs per op"
    )


def test_repeated_runs_show_each_operation_over_the_bound_run_by_run() -> None:
    """`--per-op --repeat N`: a line per operation, in how many runs it was over the bound
    (marked from the 5th operation on, where the goal counts it) and its figure in each run."""
    ops = [Op("optim-step")] * 5
    trace = Trace("t", tuple((op,) for op in ops))

    def run(lateness: list[float]) -> Run:
        durations = [0.04] * 5  # bound 10 ms
        return Run("wrapper", trace, 1.0, 5, lateness, durations, durations,
                   [(op.kind, 1.0) for op in ops])  # fmt: skip

    lines = per_operation_misses([run([0.02, 0, 0, 0, 0.005]), run([0.03, 0, 0, 0, 0.015])])
    assert len(lines) == 5
    assert lines[0].split() == ["1", "optim-step", "over", "in", "2/2", "2.00", "3.00"]
    assert lines[1].split() == ["2", "optim-step", "over", "in", "0/2", "0.00", "0.00"]
    assert lines[4].split() == ["5", "optim-step", "over", "in", "1/2", "*", "0.50", "1.50"]


def test_the_goal_is_also_judged_on_more_runs() -> None:
    """One run of a trace is a draw from a wide spread: the goals say in how many further runs
    the wrapper was within the 5th-operation goal, with their median and range."""
    ops = [Op("optim-step")] * 5
    trace = Trace("t", (tuple(ops),))

    def run(late_5th: float) -> Run:
        durations = [0.1] * 5
        return Run("wrapper", trace, 1.0, 5, [0.0] * 4 + [late_5th], durations, durations, [])

    assert within_in_repeats([run(0.005), run(0.02), run(0.009)]) == (
        "within in 2 of 3 more runs of the wrapper alone (median 0.90, 0.50-2.00; "
        "from each kind's 5th op: 2 of 3)"
    )


def test_the_goal_counted_from_each_kinds_5th_operation() -> None:
    """In a trace of interleaved kinds the 5th operation is a kind's 2nd: counted per kind,
    only each kind's 5th operation on."""
    kinds = ["a", "b"] * 6
    values = [float(n) for n in range(12)]
    assert from_each_kinds_5th(kinds, values) == [8.0, 9.0, 10.0, 11.0]
