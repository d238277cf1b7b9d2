"""The emulator benchmark of the polling guarantee (`benchmarks.bench_polling_emulator`): its
sequences, a short run of its loop on an in-process realistic emulator, and how its rows judge
the goals. Nothing is timed here: the figures are the benchmark's."""

from __future__ import annotations

from together_rl_emulator import serve_emulator

from benchmarks._polling_clients import KEY, Op, Trace
from benchmarks._polling_runs import Run, run_trace
from benchmarks.bench_polling_emulator import ALTERNATING, CLIENTS, FIXED, LOOP, rows


def test_the_sequences_are_the_ones_the_goals_name() -> None:
    sizes = [(op.count, op.size, op.forward_only) for op in ALTERNATING.ops()]
    assert sizes == [(1, 8, True), (8, 2048, True)] * 6
    assert [(op.count, op.size, op.forward_only) for op in FIXED.ops()] == [(64, 372, False)] * 4


def test_each_client_runs_a_short_alternating_sequence_against_the_emulator() -> None:
    short = Trace(
        "short",
        ((Op("forward-backward", 8, 1, True),), (Op("forward-backward", 64, 2, True),)) * 2,
    )
    with serve_emulator(api_keys=[KEY], timing="realistic") as server:
        for name, runner in CLIENTS.items():
            run = run_trace(server.base_url, name, runner, short)
            assert len(run.lateness) == 4 and min(run.lateness) >= 0, name
            assert run.gets >= 4


def run_of(trace: Trace, seconds: float, lateness: list[float], durations: list[float]) -> Run:
    return Run("x", trace, seconds, 2 * len(lateness), lateness, durations)


def test_the_rows_judge_the_goals() -> None:
    alternating = {
        "wrapper": [run_of(ALTERNATING, 6.9, [0.01] * 12, [0.9] * 12)],
        LOOP: [run_of(ALTERNATING, 6.0, [0.005] * 12, [0.9] * 12)],
    }
    fixed = [
        run_of(FIXED, 6.0, [0.4, 0.12, 0.05, 0.02], [1.3] * 4),
        run_of(FIXED, 6.0, [0.4, 0.2, 0.05, 0.02], [1.3] * 4),
    ]
    table = rows(alternating, fixed)
    assert table[0][-1] == "met (1.15 x)"  # 6.9 <= 1.10 x 6.0 + 0.5
    assert table[1][-1] == ""
    assert table[2][-1] == "met (ops 2-4: 9.2% late)"
    assert table[3][-1] == "NOT met (ops 2-4: 15.4% late)"
