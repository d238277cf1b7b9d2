"""How the realistic-traces benchmark drives a loop that submits ahead (`run_loop`), which the
wrapper, the official SDK's futures, the fixed-interval poller and the simulation share: the next
step's operations are submitted before the step's are collected, in submission order (the
submissions and collections recorded), and each of those clients runs such a loop against the
emulator."""

from __future__ import annotations

import pytest
from together_rl_emulator import serve_emulator

from benchmarks.bench_polling_traces import (
    KEY,
    Op,
    Runner,
    Trace,
    fixed_interval,
    run_loop,
    run_official_sdk_futures,
    run_trace,
    run_wrapper,
)


def test_the_next_step_is_submitted_before_a_step_is_collected() -> None:
    steps = tuple((Op("forward-backward", 64 * k, 64), Op("optim-step")) for k in (1, 2, 3))
    trace = Trace("ahead", steps, ahead=True)
    events: list[tuple[str, int]] = []
    ops = iter(range(len(trace.ops())))

    def submit(op: Op) -> int:
        number = next(ops)
        events.append(("submit", number))
        return number

    held = run_loop(trace, submit, lambda number: events.append(("collect", number)))
    assert events == [
        ("submit", 0), ("submit", 1), ("submit", 2), ("submit", 3),
        ("collect", 0), ("collect", 1), ("submit", 4), ("submit", 5),
        ("collect", 2), ("collect", 3), ("collect", 4), ("collect", 5),
    ]  # fmt: skip
    assert len(held) == 6 and held == sorted(held)


@pytest.mark.parametrize(
    "runner",
    [run_wrapper, run_official_sdk_futures, fixed_interval(0.005)],
    ids=["wrapper", "official SDK futures", "fixed interval"],
)
def test_each_client_runs_the_loop_against_the_emulator(runner: Runner) -> None:
    """Every client of the submit-ahead row (the official SDK through its Tinker layer) runs a
    short loop on a realistic emulator in this process: each operation completed, held once
    it was, with at least one GET each."""
    steps = tuple((Op("forward-backward", 8, 2), Op("optim-step")) for _ in range(2))
    trace = Trace("ahead", steps, ahead=True)
    with serve_emulator(api_keys=[KEY], timing="realistic") as server:
        run = run_trace(server.base_url, "client", runner, trace)
    assert len(run.lateness) == 4 and min(run.lateness) >= 0
    assert run.gets >= 4
