"""The polling schedule against a session on a fake clock: a server that runs operations in
submission order, each for its given duration, and a client that submits and collects them
as a loop does. What it measures is how late each operation was seen done: from when it
finished, or when its result was asked for if later, to the GET that found it done."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["PATTERNS", "Seen", "Step", "run_session"]

# How a loop submits and collects: one at a time; the next submitted before the one ahead is
# collected; all submitted, then collected in order; all submitted, then all awaited at once.
PATTERNS = ("one at a time", "submit ahead", "all, in order", "all at once")


@dataclass(frozen=True)
class Step:
    duration: float  # how long the server runs it
    work: float = 1.0  # what the client tells its planner (it may say nothing of the duration)
    kind: str = "forward-backward"


@dataclass(frozen=True)
class Seen:
    step: Step
    lateness: float  # from finished (or asked for, if later) to the GET that found it done
    gets: int


def run_session(
    planner: Any,
    steps: Sequence[Step],
    pattern: str = "one at a time",
    rng: random.Random | None = None,
    timer_late: float = 0.002,
) -> list[Seen]:
    """``steps`` through ``planner`` (``submitted(kind, now, work)``, whose polls have
    ``next_poll_at()`` and ``observe(sent_at=, done=)``) on a fake clock. A POST takes 1-10 ms
    (the operation may start up to 1 ms before its answer); a GET goes out up to
    ``timer_late`` after it was due and is answered at once."""
    rng = rng or random.Random(0)
    now = free = 0.0
    finished: list[float] = []
    polls: list[Any] = []

    def submit(step: Step) -> None:
        nonlocal now, free
        answered = now + rng.uniform(0.001, 0.010)
        start = max(free, answered - rng.uniform(0.0, 0.001))
        free = start + step.duration
        now = answered
        finished.append(free)
        polls.append(planner.submitted(step.kind, now, step.work))

    seen: dict[int, Seen] = {}

    def collect(indices: list[int]) -> None:
        """Poll these operations (asked for now) until each is seen done, the earliest due
        first, as one task each would."""
        nonlocal now
        asked = now
        waiting = list(indices)
        while waiting:
            due = {i: polls[i].next_poll_at() for i in waiting}
            index = min(waiting, key=due.__getitem__)
            sent = max(now, due[index] + rng.uniform(0.0, timer_late))
            done = sent >= finished[index]
            polls[index].observe(sent_at=sent, done=done)
            now = sent
            if done:
                late = sent - max(finished[index], asked)
                seen[index] = Seen(steps[index], late, polls[index].gets)
                waiting.remove(index)

    _loop(pattern, steps, submit, collect)
    return [seen[i] for i in range(len(steps))]


def _loop(
    pattern: str,
    steps: Sequence[Step],
    submit: Callable[[Step], None],
    collect: Callable[[list[int]], None],
) -> None:
    if pattern == "one at a time":
        for index, step in enumerate(steps):
            submit(step)
            collect([index])
    elif pattern == "submit ahead":
        submit(steps[0])
        for index in range(len(steps)):
            if index + 1 < len(steps):
                submit(steps[index + 1])
            collect([index])
    else:
        for step in steps:
            submit(step)
        if pattern == "all at once":
            collect(list(range(len(steps))))
        else:
            for index in range(len(steps)):
                collect([index])
