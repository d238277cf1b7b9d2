"""The poller's prediction from an operation's work (its tokens and samples), on a fake clock:
durations of one kind that vary 10x with the work, queued operations of different work, the
schedule as a pure query, the settings' one home and the session planners' lifetime. No
timing is measured: the schedule is computed."""

from __future__ import annotations

import gc
import itertools
import random

import numpy as np
import pytest
from together_rl import Client, PollPolicy, Sample
from together_rl._bodies import build_forward_backward, build_sample, operation_work
from together_rl._polling import PollHistory, PollPlanner
from wrapper_helpers import running_until

# (fixed overhead s, seconds per unit of work): durations from 0.03 to 0.43 s, 0.2 to 2.2 s, ...
SHAPES = [(0.03, 2e-5), (0.2, 1e-4), (0.01, 1e-5), (0.5, 0.0)]


def run(
    planner: PollPlanner, durations_and_works: list[tuple[float, float]], aware: bool = True
) -> list[tuple[int, float, float]]:
    """(GETs, lateness, duration) of operations run one after the other and collected at once;
    ``aware``: the planner is told each operation's work (else only its kind)."""
    outcomes, now = [], 0.0
    for duration, work in durations_and_works:
        poll = planner.submitted("fb", now, work if aware else 0.0)
        done_at = now + duration
        while True:
            at = max(poll.next_poll_at(), now)
            poll.observe(sent_at=at, done=at >= done_at)
            now = at + 0.001  # the GET's round trip
            if at >= done_at:
                break
        poll.finish()
        outcomes.append((poll.gets, at - done_at, duration))
        now += 0.002  # the next POST
    return outcomes


def p95_over_bound(outcomes: list[tuple[int, float, float]]) -> float:
    ratios = sorted(late / max(0.010, 0.05 * d) for _, late, d in outcomes)
    return ratios[int(0.95 * len(ratios))]


def traces() -> list[list[tuple[float, float]]]:
    """Ten seeds x four shapes, 60 operations each whose work varies 10x at random."""
    out = []
    for seed in range(10):
        rng = random.Random(seed)
        for overhead, per_unit in SHAPES:
            works = [rng.uniform(2000, 20000) for _ in range(60)]
            out.append([(overhead + per_unit * w, w) for w in works])
    return out


def test_durations_varying_10x_with_the_work_are_collected_within_the_bound() -> None:
    """Told the work, the poller learns how the duration grows with it: from the 30th
    operation the p95 lateness is within max(10 ms, 5 % of D) on all 40 traces (fixed overheads
    from 10 ms to 0.5 s, so durations not in proportion to the work), at 1.6 GETs per operation
    at most; learning the kind alone it is late on most of them."""
    p95s = []
    for trace in traces():
        outcomes = run(PollPlanner(), trace)[30:]
        p95s.append(p95_over_bound(outcomes))
        assert sum(g for g, _, _ in outcomes) / len(outcomes) <= 1.6
    assert max(p95s) <= 1.0, p95s
    kind_alone = [p95_over_bound(run(PollPlanner(), t, aware=False)[30:]) for t in traces()]
    assert sum(r > 1.0 for r in kind_alone) >= len(kind_alone) // 2


def test_a_slope_learned_is_the_work_cost() -> None:
    planner = PollPlanner()
    run(planner, traces()[0])
    reference, slope = planner.history.trends["fb"]
    assert slope == pytest.approx(2e-5, rel=0.05)
    assert planner.history["fb"] == pytest.approx(0.03 + 2e-5 * reference, rel=0.05)


def _seen(planner: PollPlanner, at: float, work: float, running: float, done: float) -> None:
    """An operation of ``work`` submitted at ``at``, seen running at ``running`` after it and
    done at ``done``."""
    poll = planner.submitted("fb", at, work)
    poll.observe(sent_at=at + running, done=False)
    poll.observe(sent_at=at + done, done=True)
    poll.finish()


def test_the_warm_up_takes_bounds_in_proportion_to_the_work_while_they_agree() -> None:
    """An operation of 1000 tokens brackets D in (0.2, 0.4]; one of 500 seen running at 0.15 s
    and done at 0.18 s says, in proportion, (0.3, 0.36] at 1000 tokens: the bracket narrows to
    that (weakened, 0.15 s would say nothing and 0.18 s at most 0.36 s)."""
    planner = PollPlanner()
    _seen(planner, 0.0, 1000.0, 0.2, 0.4)
    _seen(planner, 10.0, 500.0, 0.15, 0.18)
    kind = planner._kinds["fb"]
    assert (kind.low, kind.high) == (pytest.approx(0.3), pytest.approx(0.36))


def test_bounds_that_disagree_with_proportion_are_weakened_instead() -> None:
    """Seen running at 0.25 s with 500 tokens, in proportion the kind would take over 0.5 s at
    1000 tokens, past the 0.4 s it was seen done by: durations are not in proportion (a fixed
    overhead), and the bounds are taken only as far as a fixed overhead allows, (0.25, 0.4]."""
    planner = PollPlanner()
    _seen(planner, 0.0, 1000.0, 0.2, 0.4)
    poll = planner.submitted("fb", 10.0, 500.0)
    poll.observe(sent_at=10.25, done=False)
    kind = planner._kinds["fb"]
    assert (kind.low, kind.high) == (pytest.approx(0.25), pytest.approx(0.4))


def test_a_warm_up_held_pending_keeps_one_bound_per_work() -> None:
    """The warm-up keeps, per work, the longest time seen running and the shortest seen done:
    an operation held PENDING for an hour (GETs a second apart) costs each GET the same."""
    planner = PollPlanner()
    _seen(planner, 0.0, 1000.0, 0.2, 0.4)
    poll = planner.submitted("fb", 10.0, 500.0)
    for _ in range(3600):
        poll.observe(sent_at=poll.next_poll_at(), done=False)
    kind = planner._kinds["fb"]
    assert len(kind.bounds) == 3
    assert kind.low == pytest.approx(poll.last_pending_at - 10.0)


@pytest.mark.parametrize(("width", "fitted"), [(0.02, True), (0.06, False)])
def test_a_slope_is_fitted_from_operations_seen_within_two_bounds(
    width: float, fitted: bool
) -> None:
    """Operations of 2000 and 4000 tokens taking 0.25 s and 0.45 s, each seen running and done
    ``width`` apart: 20 ms is within two bounds (25 ms, 45 ms), so their middles are within a
    bound of the durations and fit the slope; 60 ms is not, and nothing is fitted."""
    planner = PollPlanner()
    for n, (work, duration) in enumerate([(2000.0, 0.25), (4000.0, 0.45)]):
        _seen(planner, 10.0 * n, work, duration - width / 2, duration + width / 2)
    assert ("fb" in planner.history.trends) is fitted
    if fitted:
        assert planner.history.trends["fb"][1] == pytest.approx(1e-4)


def test_work_that_does_not_vary_keeps_the_kind_alone_schedule() -> None:
    """Operations of one work: the same GETs as when only the kind is known."""
    trace = [(0.2, 5000.0)] * 40
    assert run(PollPlanner(), trace) == run(PollPlanner(), trace, aware=False)


def test_a_queued_operation_is_predicted_from_the_work_ahead() -> None:
    history = PollHistory(fb=0.1)
    history.trends["fb"] = (1000.0, 1e-4)  # 0.1 s at 1000 tokens, + 0.1 s per 1000 more
    planner = PollPlanner(history=history)
    big = planner.submitted("fb", 0.0, 3000.0)
    small = planner.submitted("fb", 0.0, 1000.0)
    assert big.next_poll_at() == pytest.approx(0.3)
    assert small.next_poll_at() == pytest.approx(0.3 + 0.1)


def test_next_poll_at_is_a_query() -> None:
    """Asking changes nothing: the answer follows what the kind knows until the first GET,
    which fixes the plan."""
    history = PollHistory(fb=0.2)
    planner = PollPlanner(history=history)
    poll = planner.submitted("fb", 0.0)
    assert poll.next_poll_at() == poll.next_poll_at() == pytest.approx(0.2)
    other = planner.submitted("fb", 10.0)
    other.observe(sent_at=10.2, done=False)  # slower: seen running at 0.2 s
    other.observe(sent_at=10.3, done=True)
    assert poll.gets == 0 and poll.next_poll_at() > 0.2  # the new estimate
    first = poll.next_poll_at()
    poll.observe(sent_at=first, done=False)
    later = planner.submitted("fb", 20.0)
    later.observe(sent_at=20.01, done=True)  # teaches the kind; the plan of `poll` is fixed
    assert poll.next_poll_at() == poll.next_poll_at() > first


def test_every_setting_is_a_policy_field() -> None:
    policy = PollPolicy(readiness_first=0.1, readiness_growth=2.0, readiness_max=0.3)
    assert [policy.readiness_interval(n) for n in range(4)] == [0.1, 0.2, 0.3, 0.3]
    short_queue = PollPlanner(PollPolicy(queue_memory=2))
    polls = [short_queue.submitted("fb", 0.0) for _ in range(5)]
    assert short_queue._queue == polls[-2:]


def test_operation_work_counts_tokens_and_completions() -> None:
    long = Sample.from_completion([1, 2, 3], [4, 5], logprobs=[-1.0, -1.0], advantages=1.0)
    short = Sample.from_completion([1], [2], logprobs=[-1.0], advantages=1.0)
    fb = build_forward_backward([long, short], {"type": "ppo"})
    assert operation_work(fb) == 4 + 1  # the model inputs' tokens
    body = build_sample([np.arange(4), [1, 2]], num_samples=8)
    assert operation_work(body) == 6 * 8 + 16  # prompts x samples, one unit per completion
    body["sampling_params"] = {"max_tokens": 64}
    assert operation_work(body) == 6 * 8 + 16 * 64
    assert operation_work(None) == operation_work({"adam_params": {}}) == 0


def test_a_session_planner_lives_as_long_as_its_handles() -> None:
    client = Client(api_key="k", base_url="http://127.0.0.1:9")
    session = client.session("sess-1")
    assert client.session("sess-1")._planner is session._planner
    assert len(client._planners) == 1
    del session
    gc.collect()
    assert len(client._planners) == 0
    client.close()


def test_after_one_far_slower_operation_the_quick_ones_are_not_waited_for() -> None:
    """A learned 20 ms kind, then two operations held 800 ms (a slow exception), then quick
    ones again: the slow ones make the estimate jump, but the earlier estimate is polled first
    (one GET more), and the first quick operation done by then brings it back."""
    trace = [(0.02, 0.0)] * 10 + [(0.8, 0.0)] * 2 + [(0.02, 0.0)] * 5
    outcomes = run(PollPlanner(history=PollHistory(fb=0.02)), trace)
    assert all(late <= 0.010 and gets <= 2 for gets, late, _ in outcomes[12:])
    kind_alone_style = run(PollPlanner(PollPolicy(fast_misses=0), PollHistory(fb=0.02)), trace)
    assert max(late for _, late, _ in kind_alone_style[12:]) > 0.5  # waited for every one
    slower = [(0.02, 0.0)] * 10 + [(0.8, 0.0)] * 8  # a lasting change: the earlier one dropped
    outcomes = run(PollPlanner(history=PollHistory(fb=0.02)), slower)
    assert all(late <= 0.05 * 0.8 and gets <= 2 for gets, late, _ in outcomes[-3:])


def test_one_found_done_at_once_is_taken_to_finish_when_predicted() -> None:
    """Submitted ahead, an optim-step behind a forward-backward found done by its first GET is
    predicted from when that one was predicted done, and polled from half the forward-backward's
    bound before, a bound (less `slack`) apart: it may have finished that much earlier."""
    policy = PollPolicy()
    history = PollHistory({"fb": 0.5, "optim": 0.04})
    planner = PollPlanner(policy, history)
    fb, optim = (planner.submitted(k, 0.0) for k in ("fb", "optim"))
    fb.observe(sent_at=0.5, done=True)  # on time: the estimate steps down a little
    fb.finish()
    predicted, gap = history["fb"] + 0.04, policy.bound(0.04) - policy.slack
    sent = running_until(optim, predicted + gap)
    assert predicted - policy.bound(history["fb"]) / 2 <= sent[0] < predicted - gap / 2
    assert sent[-1] >= predicted and max(np.diff(sent)) <= gap + 1e-9


def test_one_found_done_late_starts_the_next_from_its_prediction() -> None:
    """An optim-step found done by its first GET long after it finished (read late): the
    operation behind it is predicted from when the optim-step was predicted done, not from
    mid-way since its submission."""
    history = PollHistory({"fb": 0.5, "optim": 0.04})
    planner = PollPlanner(history=history)
    optim, later = (planner.submitted(k, 0.0) for k in ("optim", "fb"))
    optim.observe(sent_at=2.0, done=True)  # read late: teaches nothing
    optim.finish()
    predicted = 0.04 + history["fb"]
    assert running_until(later, predicted)[-1] == pytest.approx(predicted)


def warm_up_gets(queued: bool) -> list[float]:
    """The GETs of a kind's second operation (its bracket 0.2-0.4 s from the first), running
    until 0.5 s: with another operation queued behind it, or alone."""
    planner = PollPlanner()
    first = planner.submitted("fb", 0.0)
    for at in (0.2, 0.4):
        first.observe(sent_at=at, done=at >= 0.4)
    first.finish()
    second = planner.submitted("fb", 1.0)
    if queued:
        planner.submitted("optim", 1.0)
    return [at - 1.0 for at in running_until(second, 1.5)]


def test_a_warm_up_with_operations_queued_behind_polls_within_the_bound() -> None:
    """Warming up, an operation alone spends the warm-up's budget (a few GETs spread over the
    bracket); with others queued behind it (its end is their start), a GET every bound (less
    `slack`) over the bracket."""
    policy = PollPolicy()
    alone, queued = warm_up_gets(queued=False), warm_up_gets(queued=True)
    within = [t for t in queued if t <= 0.4]
    assert within[0] <= 0.2 + policy.bound(0.2)
    assert max(np.diff(within)) <= policy.bound(0.4) - policy.slack + 1e-9
    assert len([t for t in alone if t <= 0.4]) < len(within) / 2


def test_a_search_with_operations_queued_behind_grows_more_slowly() -> None:
    """Knowing nothing, GETs grow `search_growth` (2) x apart for an operation alone and
    `queued_search_growth` (1.5) x with others queued behind it, whose brackets are then polled
    a bound apart: the bracket it leaves, (t, 1.5 t], is half as wide."""
    policy = PollPolicy()
    for queued, growth in ((False, policy.search_growth), (True, policy.queued_search_growth)):
        planner = PollPlanner(policy)
        poll = planner.submitted("fb", 0.0)
        if queued:
            planner.submitted("fb", 0.0)
        times = running_until(poll, 0.5)
        assert times[0] == pytest.approx(policy.first_poll)
        for before, after in itertools.pairwise(times):
            grown = max(policy.first_poll, (growth - 1) * before)  # first_poll at least
            assert after == pytest.approx(before + grown), queued
        assert times[-1] / times[-2] == pytest.approx(growth)


def test_a_prediction_stays_as_the_first_get_fixed_it() -> None:
    """A forward-backward found done by its GET at its predicted end (0.5 s) teaches its kind a
    shorter estimate; the optim-step behind it still starts at 0.5 s, when it was predicted
    done, not at the new estimate's earlier time."""
    history = PollHistory({"fb": 0.5, "optim": 0.04})
    planner = PollPlanner(history=history)
    fb, optim = planner.submitted("fb", 0.0), planner.submitted("optim", 0.0)
    fb.observe(sent_at=0.5, done=True)
    fb.finish()
    assert history["fb"] < 0.5
    assert fb.predicted_done() == optim.start == pytest.approx(0.5)
