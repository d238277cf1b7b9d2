"""The polling warm-up, on a fake clock: how many GETs the first operations of a session cost
and how late they are collected, with no history, with another session's history and with
another kind's. No timing is measured: the schedule is computed."""

from __future__ import annotations

import itertools

import pytest
from together_rl._polling import PollHistory, PollPlanner, PollPolicy

SLACK = PollPolicy().slack

DURATIONS = [0.02 * 100 ** (i / 20) for i in range(21)]  # 20 ms to 2 s, geometrically


def run_operations(
    planner: PollPlanner, duration: float, operations: int, kind: str = "fb"
) -> list[tuple[int, float]]:
    """(GETs, lateness) of `operations` operations of `duration` each, run one after the other
    and collected at once; lateness is how long after completion the operation was seen done."""
    outcomes: list[tuple[int, float]] = []
    now = 0.0
    for _ in range(operations):
        poll = planner.submitted(kind, now)
        done_at = now + duration
        while True:
            at = max(poll.next_poll_at(), now)
            poll.observe(sent_at=at, done=at >= done_at)
            now = at + 0.001  # the GET's round trip
            if at >= done_at:
                break
        planner.finished(poll)
        outcomes.append((poll.gets, at - done_at))
        now += 0.002  # the next POST
    return outcomes


def bound(duration: float) -> float:
    return max(0.010, 0.05 * duration)


@pytest.mark.parametrize("duration", DURATIONS, ids=lambda d: f"{1000 * d:.0f}ms")
def test_first_four_operations_cost_at_most_three_gets_each(duration: float) -> None:
    gets = [count for count, _ in run_operations(PollPlanner(), duration, 4)]
    assert sum(gets) <= 3 * 4, gets


@pytest.mark.parametrize("duration", DURATIONS, ids=lambda d: f"{1000 * d:.0f}ms")
def test_warm_up_narrows_then_collects_on_time(duration: float) -> None:
    outcomes = run_operations(PollPlanner(), duration, 12)
    first_late = outcomes[0][1]
    # Each warm-up operation after the first is collected no later after completion than the
    # first (whose geometric search brackets the duration), give or take the bracket's slack...
    assert all(late <= first_late + SLACK + 1e-9 for _, late in outcomes[1:4])
    # ...and every operation from the fifth on is collected within max(10 ms, 5% of D).
    assert all(late <= bound(duration) + 1e-9 for _, late in outcomes[4:]), outcomes


@pytest.mark.parametrize("duration", DURATIONS, ids=lambda d: f"{1000 * d:.0f}ms")
def test_a_larger_warm_up_budget_collects_on_time_from_the_second_operation(
    duration: float,
) -> None:
    """The other side of the trade-off docs/wrapper.md proves unavoidable: with
    `warmup_budget=8`, every operation from the second is collected within the bound."""
    planner = PollPlanner(PollPolicy(warmup_budget=8))
    outcomes = run_operations(planner, duration, 12)
    assert sum(gets for gets, _ in outcomes[:4]) <= 8 * 4
    assert all(late <= bound(duration) for _, late in outcomes[1:]), outcomes


def test_first_operation_searches_geometrically_from_the_first_guess() -> None:
    policy = PollPolicy()
    planner = PollPlanner(policy)
    poll = planner.submitted("fb", 0.0)
    times = []
    for _ in range(5):
        times.append(poll.next_poll_at())
        poll.observe(sent_at=times[-1], done=False)
    assert times[0] == pytest.approx(policy.first_poll)
    for before, after in itertools.pairwise(times):
        grown = (policy.search_growth - 1) * before
        assert after == pytest.approx(before + min(policy.max_interval, grown))


def get_times(planner: PollPlanner, start: float, done_at: float) -> list[float]:
    """The GETs of one operation submitted at `start` and done at `done_at` (relative to
    `start`), sent on time and each answered at once."""
    poll, times = planner.submitted("fb", start), [-1.0]
    while start + times[-1] < done_at:
        at = poll.next_poll_at()
        times.append(at - start)
        poll.observe(sent_at=at, done=at >= done_at)
    planner.finished(poll)
    return times[1:]


def test_second_operation_spreads_its_gets_over_the_bracket() -> None:
    planner = PollPlanner()
    first = get_times(planner, 0.0, 0.3)  # pending at 0.135 s, done at 0.405 s
    low, high = first[-2], first[-1]
    assert low < 0.3 <= high
    points = get_times(planner, 1.0, 1.0 + high + 0.1)  # slower: past the bracket
    points = [t for t in points if t <= high + SLACK + 1e-9]
    # The budget left (12 GETs over 4 operations), less one GET for each of the other two...
    assert len(points) == 12 - len(first) - 2
    # ...spread geometrically over the bracket, its upper end (plus the slack) last.
    assert points[-1] == pytest.approx(high + SLACK)
    assert all(low < a < b for a, b in itertools.pairwise(points))
    ratios = [b / a for a, b in zip([low, *points], points, strict=False)]
    assert max(ratios) == pytest.approx(min(ratios))  # geometric


@pytest.mark.parametrize("duration", [0.02, 0.2, 1.3, 2.0])
def test_a_new_session_starts_from_what_the_client_learned(duration: float) -> None:
    history = PollHistory()
    run_operations(PollPlanner(history=history), duration, 8)
    assert history.get("fb") is not None
    outcomes = run_operations(PollPlanner(history=history), duration, 4)
    assert sum(count for count, _ in outcomes) <= 6
    assert sorted(late for _, late in outcomes)[2] <= bound(duration)


def test_a_new_kind_takes_its_first_guess_from_the_kinds_learned() -> None:
    policy = PollPolicy()
    history = PollHistory({"optim-step": 0.8, "fb": 2.0})
    poll = PollPlanner(policy, history).submitted("sample", 0.0)
    assert poll.next_poll_at() == pytest.approx(0.5 * 0.8)  # half the shortest
    assert PollPlanner(policy).submitted("sample", 0.0).next_poll_at() == policy.first_poll


def test_durations_that_vary_more_than_the_bracket_end_the_warm_up() -> None:
    planner = PollPlanner()
    run_operations(planner, 0.3, 1)
    outcomes = run_operations(planner, 0.9, 5)  # three times slower than the bracket says
    gets = [count for count, _ in outcomes]
    # The bracket's GETs, then GETs past its end a bound of the time so far apart (not the
    # first operation's coarse search, late by up to D): collected within the bound of 0.9 s,
    # for a few more GETs; the warm-up then ends and the next operations are learned ones.
    assert gets[0] <= 20 and outcomes[0][1] <= 0.05 * 0.9
    assert planner.history.get("fb") is not None
    assert max(gets[2:]) <= 3


@pytest.mark.parametrize("duration", DURATIONS, ids=lambda d: f"{1000 * d:.0f}ms")
def test_a_session_after_four_operations_of_another_starts_learned(duration: float) -> None:
    """The first session's 4 warm-up operations leave the client's history a duration, even
    when its bracket is still wide (its fifth operation would narrow it): the next session
    polls each of its operations first at the predicted end, with no search."""
    history = PollHistory()
    run_operations(PollPlanner(history=history), duration, 4)
    assert history.get("fb") is not None
    outcomes = run_operations(PollPlanner(history=history), duration, 4)
    assert sum(gets for gets, _ in outcomes) <= 4 * 2, outcomes
