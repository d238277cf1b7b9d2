"""How the realistic-traces benchmark drives a loop that submits ahead (`submitted_ahead`),
which the wrapper, the official SDK's futures and the fixed-interval poller share: the next
step's operations are submitted before the step's are collected, in submission order. No
emulator runs: the submissions and collections are recorded."""

from __future__ import annotations

from benchmarks.bench_polling_traces import Op, Trace, submitted_ahead


def test_the_next_step_is_submitted_before_a_step_is_collected() -> None:
    steps = tuple((Op("forward-backward", 64 * k, 64), Op("optim-step")) for k in (1, 2, 3))
    trace = Trace("ahead", steps, ahead=True)
    events: list[tuple[str, int]] = []
    ops = iter(range(len(trace.ops())))

    def submit(op: Op) -> int:
        number = next(ops)
        events.append(("submit", number))
        return number

    held = submitted_ahead(trace, submit, lambda number: events.append(("collect", number)))
    assert events == [
        ("submit", 0), ("submit", 1), ("submit", 2), ("submit", 3),
        ("collect", 0), ("collect", 1), ("submit", 4), ("submit", 5),
        ("collect", 2), ("collect", 3), ("collect", 4), ("collect", 5),
    ]  # fmt: skip
    assert len(held) == 6 and held == sorted(held)
