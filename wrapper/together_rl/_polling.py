"""The polling policy, shared by the sync and the async client: when to send each GET of an
operation, learned per session and operation kind, and the waits while a session or model
resource starts.

Nothing here does I/O or sleeps: the clients ask when the next GET is due, then do the waiting
themselves (``time.sleep`` or ``asyncio.sleep``).
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

__all__ = [
    "DEFAULT_RESULT_TIMEOUT",
    "DurationTracker",
    "OperationPoll",
    "PollHistory",
    "PollPlanner",
    "PollPolicy",
    "duration_class",
    "poll_wait",
    "readiness_interval",
]

# How long a blocking `result()` / `forward()` waits by default, as the official SDK (300 s).
DEFAULT_RESULT_TIMEOUT = 300.0


@dataclass(frozen=True)
class PollPolicy:
    """The polling schedule, learned per operation kind.

    Warm-up (a kind the client has never timed): the first GET goes out ``first_poll`` after
    the POST (or at ``other_kind_fraction`` of the shortest duration learned for another kind,
    when that is later), then every ``growth`` x the time already waited (at least
    ``min_interval``, at most ``max_interval``): a geometric search that brackets the duration
    between the last GET that saw the operation running and the first that saw it done. The
    next operation spreads GETs geometrically over that bracket, which narrows it: as many as
    keep the first ``max_warmup_ops`` operations within ``warmup_budget`` GETs each on average,
    one being kept for each of the others. The warm-up ends when the bracket is narrower than
    ``max(settle_floor, settle_fraction x duration)`` or the budget cannot narrow it further;
    the bracket's middle becomes the learned duration.

    Learned: the first GET goes out when the operation is predicted to be done (predicted
    start, i.e. after the operations queued ahead of it, plus the learned duration); after a
    miss the interval starts at ``miss_fraction`` of the learned duration and doubles, capped.
    The learned duration tracks the ``target_hit_rate`` quantile of the durations (a first GET
    finds the operation done that often), with a step that doubles while the evidence keeps
    pointing the same way, so it adapts fast when durations change; an operation seen running
    well past the estimate (``jump_fraction`` of it) moves the estimate up at once. What one
    session learned is where the client's other sessions start.
    """

    first_poll: float = 0.015
    min_interval: float = 0.005
    growth: float = 2.0
    max_interval: float = 1.0
    other_kind_fraction: float = 0.5
    warmup_budget: float = 3.0
    settle_fraction: float = 0.05
    settle_floor: float = 0.010
    max_warmup_ops: int = 4
    target_hit_rate: float = 0.7
    miss_fraction: float = 0.025
    min_miss_interval: float = 0.002
    step_fraction: float = 0.02
    min_step: float = 0.0005
    late_tolerance: float = 0.003
    jump_fraction: float = 0.03
    bracket_slack: float = 0.003


class PollHistory:
    """What a client learned across its sessions: the duration of each operation kind. A new
    session starts from it instead of warming up again, and a kind never seen takes its first
    guess from the others."""

    def __init__(self) -> None:
        self._durations: dict[str, float] = {}
        self._lock = threading.Lock()

    def get(self, kind: str) -> float | None:
        with self._lock:
            return self._durations.get(kind)

    def record(self, kind: str, duration: float) -> None:
        with self._lock:
            self._durations[kind] = duration

    def shortest_other(self, kind: str) -> float | None:
        """The shortest duration learned for a kind other than ``kind``."""
        with self._lock:
            others = [d for k, d in self._durations.items() if k != kind]
        return min(others) if others else None


class DurationTracker:
    """What is known of the duration of one operation kind in one session: during warm-up a
    bracket (``low``: the longest time an operation was seen still running; ``high``: the
    shortest time one was seen done), then a learned ``estimate`` (a tracked quantile, in
    seconds) that the client's :class:`PollHistory` shares with its other sessions."""

    def __init__(
        self, policy: PollPolicy, kind: str = "", history: PollHistory | None = None
    ) -> None:
        self._policy = policy
        self._kind = kind
        self._history = history
        self.estimate: float | None = None if history is None else history.get(kind)
        self.low = 0.0
        self.high: float | None = None
        self.warmup_ops = 0
        self.warmup_spent = 0
        #: the warm-up ended on a wide bracket: the next operation narrows it (see bracket_points)
        self.narrowing = False
        self._last_direction = 0
        self._step_multiplier = 1.0

    def _set(self, estimate: float) -> None:
        self.estimate = max(0.0, estimate)
        if self._history is not None:
            self._history.record(self._kind, self.estimate)

    def seed(self, duration: float) -> None:
        """Start from a known duration, without a warm-up."""
        self._set(duration)

    def first_guess(self) -> float:
        """When the first GET of a kind with no history goes out, after the operation starts."""
        p = self._policy
        other = None if self._history is None else self._history.shortest_other(self._kind)
        return max(p.first_poll, 0.0 if other is None else p.other_kind_fraction * other)

    def _budget_left(self) -> tuple[int, int]:
        """GETs left in the warm-up budget, and warm-up operations left."""
        p = self._policy
        left = int(p.warmup_budget * p.max_warmup_ops) - self.warmup_spent
        return left, max(1, p.max_warmup_ops - self.warmup_ops)

    def bracket_points(self) -> list[float]:
        """Durations at which a warm-up operation is polled: the budget left but one GET for
        each later warm-up operation, spread geometrically over the bracket with its upper end
        (plus ``bracket_slack``) last (evenly when the bracket starts at 0)."""
        assert self.high is not None
        p = self._policy
        left, ops_left = self._budget_left()
        n = max(1, left - (ops_left - 1))
        low, high = self.low, self.high + p.bracket_slack
        if self.narrowing and low > 0.0:
            # The budgeted operations left the bracket wide: one more spreads as many GETs as
            # collecting it within max(settle_floor, settle_fraction x D) takes, so it is then
            # narrow and every later operation is collected within that bound.
            step = max(p.settle_fraction, p.settle_floor / low)
            n = max(1, math.ceil(math.log(high / low) / math.log1p(step)))
        if low <= 0.0:
            return [high * k / n for k in range(1, n + 1)]
        ratio = (high / low) ** (1.0 / n)
        return [low * ratio**k for k in range(1, n)] + [high]

    def running_at(self, duration: float) -> None:
        """Warm-up: an operation was seen still running ``duration`` after its start."""
        if self.estimate is None or self.narrowing:
            self.warmup_spent += 1
            self.low = max(self.low, duration)

    def done_at(self, duration: float) -> None:
        """Warm-up: an operation was seen done ``duration`` after its start (the last GET of
        one operation)."""
        if self.narrowing:
            self.narrowing = False
            self.high = min(self.high or duration, duration)
            self._set(self.high if self.low < self.high else self.low)
        if self.estimate is not None:
            return
        self.warmup_spent += 1
        self.high = duration if self.high is None else min(self.high, duration)
        self.warmup_ops += 1
        p = self._policy
        narrow = self.high - self.low <= max(p.settle_floor, p.settle_fraction * self.low)
        if narrow or self.low >= self.high or self.warmup_ops >= p.max_warmup_ops:
            self._settle(narrow)

    def _settle(self, narrow: bool = False) -> None:
        """End the warm-up: a narrow bracket's upper end (a first GET there finds the operation
        done, late by less than the bracket), a wide one's geometric middle (the learning then
        moves from half-way), or its lower end when durations vary more than the bracket."""
        assert self.high is not None
        if self.low >= self.high:
            self._set(self.low)
        elif narrow or self.low <= 0.0:
            self._set(self.high)
        else:
            self._set((self.low * self.high) ** 0.5)
            self.narrowing = True

    def at_least(self, duration: float) -> None:
        """An operation was seen still running `duration` after its start. When that is far
        above the estimate (a poor first guess, or operations that got slower), jump there at
        once instead of stepping up over many misses; small misses are left to `update`, so
        the estimate keeps tracking its quantile rather than the longest duration seen."""
        far = self._policy.jump_fraction * (self.estimate or 0.0)
        if self.estimate is not None and duration > self.estimate + far:
            self._set(duration)
            self._last_direction = 0
            self._step_multiplier = 1.0

    def update(self, *, hit: bool) -> None:
        """One first-GET outcome at the predicted time: done (hit) or not yet (miss)."""
        if self.estimate is None:
            return
        p = self._policy
        direction = -1 if hit else 1
        if direction == self._last_direction:
            self._step_multiplier = min(self._step_multiplier * 2.0, 64.0)
        else:
            self._step_multiplier = 1.0
        self._last_direction = direction
        step = max(p.min_step, p.step_fraction * self.estimate) * self._step_multiplier
        if hit:
            self._set(self.estimate - min(step * (1 - p.target_hit_rate), 0.5 * self.estimate))
        else:
            self._set(self.estimate + step * p.target_hit_rate)


class OperationPoll:
    """The polling plan of one operation: when to send the next GET, and what was learned.
    The plan is fixed at the first GET: learned (poll at the predicted end), warm-up within a
    bracket, or warm-up from a first guess."""

    def __init__(
        self,
        policy: PollPolicy,
        tracker: DurationTracker,
        *,
        submitted_at: float,
        predicted_start: float,
    ) -> None:
        self._policy = policy
        self._tracker = tracker
        self.submitted_at = submitted_at
        self.predicted_start = predicted_start
        self.gets = 0
        self.last_pending_at: float | None = None
        self.finished_at: float | None = None
        self.learning = True
        self._first_scheduled: float | None = None
        self._learned = False
        self._points: list[float] = []

    @property
    def start(self) -> float:
        return max(self.predicted_start, self.submitted_at)

    @property
    def predicted_done(self) -> float | None:
        estimate = self._tracker.estimate
        if estimate is None:
            return None
        return self.start + estimate

    def rebase(self, predicted_start: float) -> None:
        """The operation ahead of this one finished: start no earlier than it did."""
        if self.gets == 0:
            self.predicted_start = max(self.submitted_at, predicted_start)

    def next_poll_at(self) -> float:
        """Absolute (clock) time of the next GET."""
        p = self._policy
        tracker = self._tracker
        if self.gets == 0:
            done = self.predicted_done
            if done is not None and not (tracker.narrowing and self.learning):
                self._learned = True
                at = done
            elif tracker.high is not None and self.learning:
                self._points = [self.start + d for d in tracker.bracket_points()]
                at = self._points[0]
            else:
                at = self.start + tracker.first_guess()
            self._first_scheduled = at
            return at
        assert self.last_pending_at is not None
        if self._learned:
            assert tracker.estimate is not None
            base = max(p.min_miss_interval, p.miss_fraction * tracker.estimate)
            return self.last_pending_at + min(p.max_interval, base * (2.0 ** (self.gets - 1)))
        if self.gets < len(self._points):
            return max(self._points[self.gets], self.last_pending_at + p.min_interval)
        if self._points:  # slower than the bracket said: search on, as after a learned miss
            base = max(p.min_miss_interval, p.miss_fraction * (self._points[-1] - self.start))
            past = self.gets - len(self._points)
            return self.last_pending_at + min(p.max_interval, base * 2.0**past)
        waited = self.last_pending_at - self.start
        return self.last_pending_at + min(p.max_interval, max(p.min_interval, p.growth * waited))

    def observe(self, *, sent_at: float, done: bool) -> None:
        """Record one GET's outcome (``sent_at``: when the GET went out)."""
        self.gets += 1
        first = self.gets == 1
        if done:
            self.finished_at = sent_at
        else:
            self.last_pending_at = sent_at
        if not self.learning:
            return
        tracker = self._tracker
        if not self._learned:
            if done:
                tracker.done_at(sent_at - self.start)
            else:
                tracker.running_at(sent_at - self.start)
            return
        if not done:
            if first:
                tracker.update(hit=False)
        elif not first and self.last_pending_at is not None:
            tracker.at_least(self.last_pending_at - self.start)
        elif (
            first
            and self._first_scheduled is not None
            # A first GET sent late (the caller read the result late) says nothing about speed.
            and sent_at <= self._first_scheduled + self._policy.late_tolerance
        ):
            tracker.update(hit=True)

    def finished_estimate(self) -> float:
        """Best guess of when the operation finished (middle of the last bracket)."""
        assert self.finished_at is not None
        lower = self.last_pending_at if self.last_pending_at is not None else self.submitted_at
        return (lower + self.finished_at) / 2.0


class PollPlanner:
    """Polling state of one session: learned durations per operation kind (starting from what
    the client's ``history`` holds), and the queue of operations in flight (a session runs its
    operations in submission order, so an operation's predicted start is the predicted end of
    the one before it)."""

    def __init__(
        self, policy: PollPolicy | None = None, history: PollHistory | None = None
    ) -> None:
        self.policy = policy or PollPolicy()
        self.history = history if history is not None else PollHistory()
        self._trackers: dict[str, DurationTracker] = {}
        self._in_flight: list[OperationPoll] = []
        self._lock = threading.Lock()

    def tracker(self, kind: str) -> DurationTracker:
        with self._lock:
            tracker = self._trackers.get(kind)
            if tracker is None:
                tracker = DurationTracker(self.policy, kind, self.history)
                self._trackers[kind] = tracker
            return tracker

    def submitted(self, kind: str, submitted_at: float) -> OperationPoll:
        """Register an acknowledged submission and return its polling plan."""
        tracker = self.tracker(kind)
        with self._lock:
            start = submitted_at
            if self._in_flight:
                ahead = self._in_flight[-1].predicted_done
                if ahead is not None:
                    start = max(start, ahead)
            poll = OperationPoll(
                self.policy, tracker, submitted_at=submitted_at, predicted_start=start
            )
            self._in_flight.append(poll)
            if len(self._in_flight) > 1024:  # futures dropped without being collected
                del self._in_flight[0]
            return poll

    def attached(self, kind: str, now: float) -> OperationPoll:
        """A plan for an operation collected by id (no submission seen): not queued, learns
        nothing, and polls on the growing schedule from the start."""
        poll = OperationPoll(
            self.policy, DurationTracker(self.policy), submitted_at=now, predicted_start=now
        )
        poll.learning = False
        return poll

    def finished(self, poll: OperationPoll) -> None:
        """The operation reached a terminal status (or its caller gave up on it)."""
        with self._lock:
            if poll not in self._in_flight:
                return
            index = self._in_flight.index(poll)
            del self._in_flight[index]
            if poll.finished_at is not None and index < len(self._in_flight):
                start = poll.finished_estimate()
                for later in self._in_flight[index:]:
                    later.rebase(start)
                    done = later.predicted_done
                    if done is None:
                        break
                    start = done


def readiness_interval(attempt: int) -> float:
    """Wait between GETs while a session or model resource starts (50 ms growing to 5 s)."""
    return float(min(5.0, 0.05 * 1.5**attempt))


def poll_wait(next_poll_at: float, now: float, deadline: float | None) -> float | None:
    """Seconds to sleep before the next GET, or None when the deadline comes first."""
    if deadline is not None and next_poll_at > deadline:
        return None
    return max(0.0, next_poll_at - now)


def duration_class(kind: str, forward_only: bool = False) -> str:
    """The name an operation's duration is learned under: its kind, and a forward-only
    forward-backward apart (it is much shorter than a pass with a backward)."""
    return kind + (":forward" if forward_only else "")
