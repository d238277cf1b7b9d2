"""The poller on a fake clock where the first-principles schedule meets a real service's
habits: operations submitted ahead (a session's FIFO queue: each starts when the one ahead
finishes, which the client sees only as well as it polled that one), timers that fire a few ms
late, durations that vary from one operation to the next, and weak bounds from work that
differs from the kind's reference. No timing is measured: the schedule is computed."""

from __future__ import annotations

import itertools
import random

import pytest
from together_rl._polling import OperationPoll, PollHistory, PollPlanner, PollPolicy

POLICY = PollPolicy()


def bound(duration: float) -> float:
    return max(0.010, 0.05 * duration)


def submit_ahead(
    steps: list[list[tuple[str, float, float]]], rng: random.Random
) -> list[tuple[float, float]]:
    """(lateness, duration) of each operation of ``steps`` ((kind, duration, work) each), run by
    a FIFO server while the client keeps the next step submitted while collecting one, its
    GETs going out up to 2 ms late, each answered in 1 ms."""
    planner, now, free, out = PollPlanner(), 0.0, 0.0, []

    def submit(kind: str, duration: float, work: float) -> tuple[OperationPoll, float, float]:
        nonlocal now, free
        now += 0.002  # the POST
        free = max(now, free) + duration  # when it finishes, after the ones ahead
        return planner.submitted(kind, now, work), free, duration

    def collect(item: tuple[OperationPoll, float, float]) -> None:
        nonlocal now
        poll, done_at, duration = item
        while True:
            at = max(poll.next_poll_at() + rng.uniform(0, 0.002), now)
            poll.observe(sent_at=at, done=at >= done_at)
            now = at + 0.001
            if at >= done_at:
                break
        poll.finish()
        out.append((at - done_at, duration))

    flight = [submit(*op) for op in steps[0]]
    for k in range(len(steps)):
        later = [submit(*op) for op in steps[k + 1]] if k + 1 < len(steps) else []
        for item in flight:
            collect(item)
        flight = later
    return out


def ahead_trace(seed: int) -> list[list[tuple[str, float, float]]]:
    """Twelve steps of a forward-backward (64 x 64-256 tokens, 5.45e-5 s per token) and an
    optim-step of 42 ms."""
    rng = random.Random(seed)
    steps = []
    for _ in range(12):
        tokens = 64 * rng.randrange(64, 257, 16)
        steps.append([("fb", 0.003 + 5.45e-5 * tokens, float(tokens)), ("optim", 0.042, 0.0)])
    return steps


def test_submitted_ahead_the_lateness_does_not_grow() -> None:
    """What an operation queued behind one found done at once says of its duration is taken
    from the earliest it could have started (when the one ahead was last seen running), not
    from a guessed start; so the learned durations are about right and the lateness does not
    grow step after step. From the 5th step, over 10 traces, the median operation is within
    2 x max(10 ms, 5 % of D) in 8 and the worst within 5 x in half (from a guessed start: the
    median within 2 x in 2 of them, the worst within 5 x in 1, up to 100 x)."""
    medians, worsts = [], []
    for seed in range(10):
        outcomes = submit_ahead(ahead_trace(seed), random.Random(seed))
        ratios = sorted(lateness / bound(d) for lateness, d in outcomes[8:])
        medians.append(ratios[len(ratios) // 2])
        worsts.append(ratios[-1])
    assert sum(m <= 2 for m in medians) >= 8, medians
    assert sum(w <= 5 for w in worsts) >= 5, worsts


def queued_behind_one_seen_done(
    planner: PollPlanner, ahead: tuple[float, float], behind: tuple[float, float]
) -> None:
    """A forward-backward and an optim-step submitted at 0, each seen running at the first time
    of its pair and done at the second, the forward-backward first."""
    fb, optim = planner.submitted("fb", 0.0), planner.submitted("optim", 0.0)
    for poll, (running, done) in ((fb, ahead), (optim, behind)):
        poll.observe(sent_at=running, done=False)
        poll.observe(sent_at=done, done=True)
        poll.finish()


def test_a_queued_operation_learns_no_floor_from_a_guessed_start() -> None:
    """An optim-step queued behind a forward-backward that was last seen running at 0.2 s and
    done at 0.4 s may have started at any time in between: seen running 50 ms after the
    later end, its duration is known to be at least 50 ms, not 0.15 s (from a start guessed
    mid-way)."""
    planner = PollPlanner()
    queued_behind_one_seen_done(planner, ahead=(0.2, 0.4), behind=(0.45, 0.47))
    kind = planner._kinds["optim"]
    assert kind.low == pytest.approx(0.05)
    assert kind.high == pytest.approx(0.27)  # done by 0.47 s, started after 0.2 s


def test_a_queued_operation_teaches_from_the_safe_side_of_its_start() -> None:
    """An optim-step queued behind a forward-backward seen running at 0.19 s and done at 0.23 s
    started somewhere between: found running 50 ms after its predicted start (0.195 s) but only
    15 ms after its latest, it says nothing of being slower than its 40 ms estimate."""
    history = PollHistory({"fb": 0.2, "optim": 0.04})
    queued_behind_one_seen_done(
        PollPlanner(history=history), ahead=(0.19, 0.23), behind=(0.245, 0.26)
    )
    assert history["optim"] <= 0.04


def test_bounds_from_other_work_are_scaled_only_where_that_weakens_them() -> None:
    """Where bounds disagree with proportion (`test_polling_work.py`), durations are taken to
    grow with the work no faster than in proportion (a fixed overhead and a cost per unit):
    so an operation of half the
    reference work seen running at 0.3 s says the reference takes at least 0.3 s (not 0.6 s),
    and one of twice the work seen done at 0.3 s that it takes at most 0.3 s."""
    planner = PollPlanner()
    planner.submitted("fb", 0.0, 1000.0).finish()  # sets the reference work
    kind = planner._kinds["fb"]
    assert kind.to_reference(0.3, 500.0, done=False) == pytest.approx(0.3)
    assert kind.to_reference(0.3, 500.0, done=True) == pytest.approx(0.6)
    assert kind.to_reference(0.3, 2000.0, done=False) == pytest.approx(0.15)
    assert kind.to_reference(0.3, 2000.0, done=True) == pytest.approx(0.3)


def test_a_warm_up_still_wide_ends_at_its_low_end() -> None:
    """After `warmup_ops` operations that only bracket D in (0.1, 0.4], the estimate is the
    bracket's low end: the next operation's first GET comes early (a miss, then GETs half a
    bound apart), not at its far end (late by up to 0.3 s)."""
    planner = PollPlanner()
    for n in range(POLICY.warmup_ops + 1):
        poll = planner.submitted("fb", 10.0 * n)
        poll.observe(sent_at=10.0 * n + 0.1, done=False)
        poll.observe(sent_at=10.0 * n + 0.4, done=True)
        poll.finish()
    assert planner.history["fb"] == pytest.approx(0.1)


def test_after_the_plan_gets_are_half_a_bound_apart_then_a_bound_of_the_time_so_far() -> None:
    """Past its plan (an operation far slower than learned, or held PENDING), GETs go out half
    a bound apart `late_steady` + 1 times, then each a bound of the time since the start
    (`late_floor` apart at least, `max_interval` at most): found done at any time, the
    operation is collected within the bound of how long it took, at no more than 50 GETs a
    second (the client kit's poll-rate-bounded rule)."""
    planner = PollPlanner(history=PollHistory(fb=0.4))
    poll = planner.submitted("fb", 0.0)
    times = [poll.next_poll_at()]
    while times[-1] < 30.0:
        poll.observe(sent_at=times[-1], done=False)
        times.append(poll.next_poll_at())
    gaps = [b - a for a, b in itertools.pairwise(times)]
    half = bound(0.4) / 2
    steady = POLICY.late_steady + 1
    assert gaps[:steady] == pytest.approx([half] * steady)
    for at, gap in zip(times[steady:], gaps[steady:], strict=False):
        assert gap == pytest.approx(min(POLICY.max_interval, max(POLICY.late_floor, bound(at))))
    assert max(gaps) == pytest.approx(POLICY.max_interval)
    assert len(times) - 1 <= 50 * (times[-1] - times[0])


def test_a_first_get_sent_a_little_late_still_teaches() -> None:
    """A timer firing 4 ms late (within half the 10 ms bound) still shows the operation was
    done when planned: the estimate steps down. Sent much later, it is no news."""
    history = PollHistory(fb=0.1)
    planner = PollPlanner(history=history)
    poll = planner.submitted("fb", 0.0)
    poll.observe(sent_at=poll.next_poll_at() + 0.004, done=True)
    poll.finish()
    assert history["fb"] < 0.1
    before = history["fb"]
    poll = planner.submitted("fb", 1.0)
    poll.observe(sent_at=poll.next_poll_at() + 0.05, done=True)
    assert history["fb"] == before


def test_after_misses_the_estimate_never_passes_when_one_was_seen_done() -> None:
    """A 40 ms kind that became 46 ms: each operation's first GET misses and the next, half a
    bound later, finds it done; the estimate rises to where they were found done, not past
    it (by steps doubling while they go up), so no operation is then collected late."""
    history = PollHistory(fb=0.040)
    planner, now, lateness = PollPlanner(history=history), 0.0, []
    for _ in range(8):
        poll = planner.submitted("fb", now)
        done_at = now + 0.046
        while True:
            at = poll.next_poll_at()
            poll.observe(sent_at=at, done=at >= done_at)
            if at >= done_at:
                break
        poll.finish()
        lateness.append(at - done_at)
        assert history["fb"] <= at - now + 1e-9
        now = at + 0.01
    assert max(lateness) <= 0.006


def test_a_small_kind_too_slow_in_the_history_comes_down_within_a_few_operations() -> None:
    """Steps are a part of each operation's bound (10 ms at least), not of its duration: a
    kind learned at 60 ms that now takes 30 ms is collected within the bound from its 6th
    operation (steps of 2 % of 60 ms took 7)."""
    planner, now, lateness = PollPlanner(history=PollHistory(fb=0.060)), 0.0, []
    for _ in range(8):
        poll = planner.submitted("fb", now)
        at = poll.next_poll_at()
        poll.observe(sent_at=at, done=at >= now + 0.030)
        while poll.finished_at is None:
            at = poll.next_poll_at()
            poll.observe(sent_at=at, done=at >= now + 0.030)
        poll.finish()
        lateness.append(at - now - 0.030)
        now = at + 0.01
    assert all(late <= 0.010 for late in lateness[5:]), lateness


def test_a_slope_needs_work_that_spans_more_than_noise() -> None:
    """Two operations of 4096 and 4608 tokens seen closely (12 % apart): their durations'
    noise would make the slope (here 0: the kind's time would no longer follow its work), so
    none is fitted until the work spans more than `fit_span` x."""
    planner = PollPlanner()
    for n, (work, duration) in enumerate([(4096.0, 0.253), (4608.0, 0.244)]):
        poll = planner.submitted("fb", 10.0 * n, work)
        poll.observe(sent_at=10.0 * n + duration - 0.005, done=False)
        poll.observe(sent_at=10.0 * n + duration + 0.005, done=True)
        poll.finish()
    assert "fb" not in planner.history.trends


def _collect(poll: OperationPoll, done_at: float) -> float:
    """GETs on the planned schedule until the operation is done at ``done_at``; the last one."""
    while True:
        at = poll.next_poll_at()
        poll.observe(sent_at=at, done=at >= done_at)
        if at >= done_at:
            poll.finish()
            return at


def test_a_session_of_one_operation_leaves_the_client_a_duration() -> None:
    """A client whose sessions run one operation each learns too: the first session's search
    brackets the duration, and the next session's first GET goes out at the bracket's middle
    instead of searching from `first_poll` again."""
    history = PollHistory()
    first = PollPlanner(history=history).submitted("fb", 0.0)
    _collect(first, 0.2)  # searched: 15, 30, 60, 120, 240 ms
    assert history["fb"] == pytest.approx((0.12 * 0.24) ** 0.5)
    second = PollPlanner(history=history).submitted("fb", 10.0)
    assert second.next_poll_at() == pytest.approx(10.0 + history["fb"])


def test_one_operation_far_slower_than_learned_is_not_passed_on_until_confirmed() -> None:
    """A 12 ms kind whose operation is held PENDING 800 ms: that session polls the quick
    estimate first from then on, and the client's later sessions keep 12 ms (before, the jump
    to 0.8 s went to the history, and every later session's first GET waited 0.8 s). Once
    `fast_misses` operations are slow too, the slow estimate is the client's."""
    history = PollHistory(fb=0.012)
    planner = PollPlanner(history=history)
    now = 0.0
    late_at = _collect(planner.submitted("fb", now), 0.8)
    assert late_at - 0.8 <= bound(0.8)  # collected within the bound of how long it took
    assert history["fb"] == pytest.approx(0.012, rel=0.5)
    assert PollPlanner(history=history).submitted("fb", 5.0).next_poll_at() < 5.05
    for _ in range(POLICY.fast_misses + 1):  # it did get slower: each one 0.8 s
        now += 2.0
        _collect(planner.submitted("fb", now), now + 0.8)
    assert history["fb"] > 0.5


def test_the_last_warm_up_get_of_a_wide_bracket_goes_to_its_middle() -> None:
    """Operations whose GETs keep D in (0.4, 0.8] until the budget leaves one GET for the last
    warm-up operation: that GET goes to the bracket's geometric middle, so one done at 0.45 s is
    collected about 0.12 s late, not 0.35 s (the end); one done at 0.78 s is then found by the
    late schedule within its bound. A bracket within `warmup_spread` keeps its end."""
    for end, done_at, late_at_most in (
        (0.8, 0.45, 0.125),
        (0.8, 0.78, PollPolicy().bound(0.78)),
        (0.5, 0.45, 0.06),  # within `warmup_spread`: at its end
    ):
        planner = PollPlanner()
        for n in range(POLICY.warmup_ops - 1):  # four GETs each: the budget's 12 less one
            poll = planner.submitted("fb", 10.0 * n)
            for k, at in enumerate((0.1, 0.2, 0.4, end)):
                poll.observe(sent_at=10.0 * n + at, done=k == 3)
            poll.finish()
        kind = planner._kinds["fb"]
        assert (kind.low, kind.high, kind.spent) == (pytest.approx(0.4), pytest.approx(end), 12)
        last = planner.submitted("fb", 100.0)
        first = last.next_poll_at() - 100.0
        wide = end > POLICY.warmup_spread * 0.4
        assert first == pytest.approx(
            (0.4 * (end + POLICY.slack)) ** 0.5 if wide else end + POLICY.slack
        )
        at = first
        while at < done_at:
            last.observe(sent_at=100.0 + at, done=False)
            at = last.next_poll_at() - 100.0
        assert at - done_at <= late_at_most
