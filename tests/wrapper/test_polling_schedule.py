"""The polling parts one by one, on a fake clock: the policy's knobs, the pure duration
estimator, the pure planner, the session queue; and the precision where predictions are right."""

from __future__ import annotations

import gc
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polling_checker import Step, run_session
from together_rl import Client, PollPolicy, Sample
from together_rl._bodies import build_forward_backward, build_sample, operation_work
from together_rl._poll_estimate import DurationEstimate
from together_rl._poll_plan import next_get, poll_wait, readiness_wait, window
from together_rl._polling import OperationPoll, PollPlanner

POLICY = PollPolicy()


def running_until(poll: OperationPoll, until: float) -> list[float]:
    """The GETs of ``poll`` sent up to ``until``, each finding it running."""
    sent: list[float] = []
    while (at := poll.next_poll_at()) <= until:
        poll.observe(sent_at=at, done=False)
        sent.append(at)
    return sent


def test_the_policy_has_five_knobs_and_refuses_a_gap_past_its_floor() -> None:
    assert list(PollPolicy.__dataclass_fields__) == [
        "lateness", "lateness_floor", "precision", "min_gap", "max_interval",
    ]  # fmt: skip
    with pytest.raises(ValueError, match="min_gap"):
        PollPolicy(min_gap=0.05)
    with pytest.raises(ValueError, match="max_interval"):
        PollPolicy(max_interval=0.001)


def test_with_nothing_predicted_gets_grow_geometrically_up_to_the_max_interval() -> None:
    poll = PollPlanner().submitted("fb", 0.0)
    sent = running_until(poll, 30.0)
    assert sent[:3] == pytest.approx([0.045, 0.09, 0.135])  # the floor's 50 ms, less 10 %
    gaps = [b - a for a, b in itertools.pairwise(sent)]
    assert all(gap <= POLICY.safety_gap(at) + 1e-12 for at, gap in zip(sent, gaps, strict=False))
    assert all(b >= a - 1e-12 for a, b in itertools.pairwise(gaps))
    assert max(gaps) == pytest.approx(POLICY.max_interval)


def widened(low: float, high: float) -> tuple[float, float]:
    """An interval as the estimator takes it: 1 % and 1 ms wider each side, for jitter."""
    return low * 0.99 - 0.001, high * 1.01 + 0.001


def test_the_estimator_predicts_every_duration_a_line_through_the_intervals_allows() -> None:
    estimate = DurationEstimate()
    assert estimate.predict(100.0) is None
    estimate.observe(100.0, 0.40, 0.60)
    assert estimate.predict(100.0) == pytest.approx(widened(0.40, 0.60))
    # another work: a fixed cost and a cost per work, neither below zero, allow at most
    # growing in proportion, and at least nothing per work
    low, high = widened(0.40, 0.60)
    assert estimate.predict(300.0) == pytest.approx((low, 3 * high))
    assert estimate.predict(50.0) == pytest.approx((low / 2, high))
    assert estimate.predict(0.0) == pytest.approx((0.0, high))
    for work in (100.0, 200.0, 300.0):  # 0.1 s + 1 ms per work, each seen within 2 ms
        estimate.observe(work, 0.1 + 0.001 * work - 0.002, 0.1 + 0.001 * work + 0.002)
    low, high = estimate.predict(250.0)  # type: ignore[misc]
    assert low < 0.35 < high and high - low < 0.02
    low, high = estimate.predict(1000.0)  # type: ignore[misc]  # far out, still on the line
    assert low < 1.1 < high and high - low < 0.1


def test_the_estimator_follows_a_jump_within_one_operation() -> None:
    estimate = DurationEstimate()
    for _ in range(5):
        estimate.observe(10.0, 0.99, 1.0)
    estimate.observe(10.0, 0.099, 0.1)  # ten times faster: the older intervals no longer fit
    assert estimate.predict(10.0) == pytest.approx(widened(0.099, 0.1))
    estimate.observe(10.0, 0.1, 0.101)
    assert estimate.predict(10.0) == pytest.approx((widened(0.1, 0.1)[0], widened(0.1, 0.1)[1]))


def test_the_estimator_says_nothing_of_work_when_it_saw_only_operations_without() -> None:
    estimate = DurationEstimate()
    estimate.observe(0.0, 0.04, 0.05)
    assert estimate.predict(0.0) == pytest.approx(widened(0.04, 0.05))
    assert estimate.predict(8.0) is None
    estimate.observe(5.0, 0.06, 0.07)  # its cost per work is bounded now
    fixed, at_5 = widened(0.04, 0.05), widened(0.06, 0.07)  # at 10: 2 x at_5 - fixed
    assert estimate.predict(10.0) == pytest.approx((2 * at_5[0] - fixed[1], 2 * at_5[1] - fixed[0]))
    estimate.observe(-1.0, 0.1, 0.2)  # refused: no negative work, no reversed interval
    estimate.observe(1.0, 0.3, 0.2)
    assert len(estimate._seen) == 2


@settings(max_examples=300, derandomize=True, deadline=None, database=None)
@given(
    fixed=st.floats(0.0, 2.0),
    per_work=st.floats(0.0, 1e-3),
    seen=st.lists(
        st.tuples(st.floats(0.0, 1e4), st.floats(0.0, 0.2), st.floats(0.0, 0.2)),
        min_size=1,
        max_size=12,
    ),
    work=st.floats(0.0, 1e5),
)
def test_where_durations_follow_the_work_the_prediction_holds_the_next_one(
    fixed: float, per_work: float, seen: list[tuple[float, float, float]], work: float
) -> None:
    """Durations that are a fixed cost plus a cost per work, each seen within an interval around
    it: the next one, of any work, is within the prediction."""
    estimate = DurationEstimate()
    for seen_work, below, above in seen:
        duration = fixed + per_work * seen_work
        estimate.observe(seen_work, max(0.0, duration - below), duration + above)
    predicted = estimate.predict(work)
    if predicted is None:
        assert work > 1e-9 and all(seen_work <= 1e-9 for seen_work, _, _ in seen)
        return
    assert predicted[0] <= fixed + per_work * work <= predicted[1]


def test_the_planner_counts_the_safety_gets_back_from_the_predicted_end() -> None:
    """The window's first GET takes a safety GET's place: the GETs before it are the
    geometric schedule counted back from it, each gap within the bound."""
    planned = window(POLICY, (0.0, 0.0), (0.995, 1.0))
    assert planned[0] == pytest.approx(1.0)  # narrower than its spacing: its end alone
    sent, last = [], 0.0
    while last < 1.0 - 1e-9:
        last = next_get(POLICY, last, 0.0, planned)
        sent.append(last)
    assert sent[-1] == pytest.approx(1.0)
    starts = [0.0, *sent]
    assert all(b - a <= POLICY.safety_gap(a) + 1e-9 for a, b in itertools.pairwise(starts))
    greedy = running_until(PollPlanner().submitted("fb", 0.0), 1.0)
    assert len(sent) <= len(greedy) + 1


def test_a_wide_window_sees_every_end_within_half_a_precision() -> None:
    """Started within (10.0, 10.02) s and running 0.9-1.1 s: wherever in (10.9, 11.12) it
    ends, the next GET is within half the precision of the shortest duration ending there."""
    planned = window(POLICY, (10.0, 10.02), (0.9, 1.1))
    end = planned.index(11.12)
    assert planned[0] == pytest.approx(10.9 + POLICY.precision_gap(0.9))
    for step in range(2201):
        ends = 10.9 + step * 1e-4
        seen = next(at for at in planned if at >= ends - 1e-12)
        assert seen - ends <= POLICY.precision_gap(max(0.9, ends - 10.02)) + 1e-9
    gaps = [b - a for a, b in itertools.pairwise(planned)]
    assert len(planned[:end]) == 9  # not the 0.22 s / 5.5 ms = 40 GETs of the floor's gap
    # then six more, each gap 1.5 x the one before: a little late is seen soon
    assert gaps[end:] == pytest.approx([POLICY.precision_gap(1.1) * 1.5**k for k in range(6)])


def test_a_window_too_vague_for_the_precision_is_spread_evenly() -> None:
    """0.01-1000 s: keeping the precision would take hundreds of GETs; 24 go evenly over it."""
    planned = window(POLICY, (0.0, 0.0), (0.01, 1000.0))
    end = planned.index(1000.0)
    assert end == 23
    gaps = [b - a for a, b in itertools.pairwise([0.01, *planned[: end + 1]])]
    assert gaps == pytest.approx([(1000.0 - 0.01) / 24] * 24)


def test_behind_an_operation_not_seen_done_gets_are_the_floors_apart() -> None:
    planner = PollPlanner()
    ahead, behind = planner.submitted("fb", 0.0), planner.submitted("fb", 0.001)
    sent = running_until(behind, 1.0)
    assert behind.start_bounds() == (0.001, None)
    assert max(b - a for a, b in itertools.pairwise(sent)) <= 0.045 + 1e-9
    ahead.observe(sent_at=1.0, done=True)  # now it started by 1.0 s at the latest
    assert behind.start_bounds() == (0.001, 1.0)
    assert sent[-1] < behind.next_poll_at() <= sent[-1] + 0.045 + 1e-9


def test_an_operation_queued_behind_one_seen_done_starts_between_its_last_two_gets() -> None:
    planner = PollPlanner()
    ahead, behind = planner.submitted("fb", 0.0), planner.submitted("optim-step", 0.01)
    ahead.observe(sent_at=0.4, done=False)
    ahead.observe(sent_at=0.5, done=True)
    assert behind.start_bounds() == (0.4, 0.5)
    assert behind.next_poll_at() == pytest.approx(0.4 + 0.045)  # it may be done: at once


def test_what_a_done_operation_teaches_is_on_the_safe_side_of_its_start() -> None:
    planner = PollPlanner()
    ahead, behind = planner.submitted("fb", 0.0, 10.0), planner.submitted("fb", 0.01, 10.0)
    ahead.observe(sent_at=0.4, done=False)
    ahead.observe(sent_at=0.5, done=True)
    behind.observe(sent_at=0.8, done=False)
    behind.observe(sent_at=0.9, done=True)
    # ahead ran (0.4, 0.5]; behind started in (0.4, 0.5] and ran (0.3, 0.5]
    assert planner._estimates["fb"]._seen[-1] == pytest.approx((10.0, 0.3, 0.5))


def test_an_answer_done_at_submission_is_seen_done() -> None:
    planner = PollPlanner()
    first = planner.submitted("fb", 0.0, done=True)
    second = planner.submitted("fb", 0.01)
    assert first.finished_at == 0.0 and second.start_bounds() == (0.01, 0.01)


@pytest.mark.parametrize("duration", [0.02, 0.2, 1.3, 7.0])
def test_where_predictions_are_right_operations_are_seen_within_the_precision(
    duration: float,
) -> None:
    """From the 5th operation of a kind whose duration does not vary, within max(10 ms, 5 %)
    of finishing, whatever the loop's pattern; the guarantee holds from the first."""
    for pattern in ("one at a time", "submit ahead"):
        seen = run_session(PollPlanner(), [Step(duration)] * 12, pattern)
        precision = max(0.010, 0.05 * duration)
        assert max(s.lateness for s in seen[4:]) <= precision, pattern
        assert max(s.lateness for s in seen) <= max(0.05, 0.5 * duration)


def test_a_fresh_session_of_fixed_operations_is_within_10_percent_from_the_second() -> None:
    seen = run_session(PollPlanner(), [Step(1.3)] * 4)
    assert max(s.lateness for s in seen[1:]) <= 0.13


def test_small_helpers() -> None:
    assert poll_wait(1.0, 0.5, None) == 0.5
    assert poll_wait(1.0, 0.5, 0.8) is None
    assert poll_wait(0.2, 0.5, 2.0) == 0.0
    assert [readiness_wait(n) for n in (0, 1, 20)] == pytest.approx([0.05, 0.075, 5.0])


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
