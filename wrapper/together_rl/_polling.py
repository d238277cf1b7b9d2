"""The polling policy, shared by the sync and the async client: when to send each GET of an
operation, learned per session and operation kind, and the waits while a session or model
resource starts.

Nothing here does I/O or sleeps: the clients ask when the next GET is due, then do the waiting
themselves (``time.sleep`` or ``asyncio.sleep``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

__all__ = [
    "DEFAULT_RESULT_TIMEOUT",
    "DurationTracker",
    "OperationPoll",
    "PollPlanner",
    "PollPolicy",
    "poll_wait",
    "readiness_interval",
]

# How long a blocking `result()` / `forward()` waits by default, as the official SDK (300 s).
DEFAULT_RESULT_TIMEOUT = 300.0


@dataclass(frozen=True)
class PollPolicy:
    """The polling schedule.

    Without history for an operation kind: first GET ``first_poll`` after the POST, then every
    ``growth`` x the time already waited (at least ``min_interval``, at most ``max_interval``).
    With history: the first GET goes out when the operation is predicted to be done (predicted
    start, i.e. after the operations queued ahead of it, plus the learned duration); after a
    miss the interval starts at ``miss_fraction`` of the learned duration and doubles, capped.
    The learned duration tracks the ``target_hit_rate`` quantile of the durations (a first GET
    finds the operation done that often), with a step that doubles while the evidence keeps
    pointing the same way, so it adapts fast when durations change; an operation seen running
    well past the estimate (``jump_fraction`` of it) moves the estimate up at once.
    """

    first_poll: float = 0.015
    min_interval: float = 0.005
    growth: float = 0.3
    max_interval: float = 1.0
    target_hit_rate: float = 0.7
    miss_fraction: float = 0.025
    min_miss_interval: float = 0.002
    step_fraction: float = 0.02
    min_step: float = 0.0005
    late_tolerance: float = 0.003
    jump_fraction: float = 0.03


class DurationTracker:
    """Learned duration of one operation kind (a tracked quantile, in seconds)."""

    def __init__(self, policy: PollPolicy) -> None:
        self._policy = policy
        self.estimate: float | None = None
        self._last_direction = 0
        self._step_multiplier = 1.0

    def seed(self, duration: float) -> None:
        """First observation of a kind with no history: the lower end of its bracket (the last
        GET that still saw it running), so the next operation's first GET errs early, and the
        tight polling after a miss then measures the duration (see `at_least`)."""
        if self.estimate is None:
            self.estimate = max(0.0, duration)

    def at_least(self, duration: float) -> None:
        """An operation was seen still running `duration` after its start. When that is far
        above the estimate (a poor first guess, or operations that got slower), jump there at
        once instead of stepping up over many misses; small misses are left to `update`, so
        the estimate keeps tracking its quantile rather than the longest duration seen."""
        far = self._policy.jump_fraction * (self.estimate or 0.0)
        if self.estimate is not None and duration > self.estimate + far:
            self.estimate = duration
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
            self.estimate = max(
                0.0, self.estimate - min(step * (1 - p.target_hit_rate), 0.5 * self.estimate)
            )
        else:
            self.estimate += step * p.target_hit_rate


class OperationPoll:
    """The polling plan of one operation: when to send the next GET, and what was learned."""

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

    @property
    def predicted_done(self) -> float | None:
        estimate = self._tracker.estimate
        if estimate is None:
            return None
        return max(self.predicted_start, self.submitted_at) + estimate

    def rebase(self, predicted_start: float) -> None:
        """The operation ahead of this one finished: start no earlier than it did."""
        if self.gets == 0:
            self.predicted_start = max(self.submitted_at, predicted_start)

    def next_poll_at(self) -> float:
        """Absolute (clock) time of the next GET."""
        p = self._policy
        if self.gets == 0:
            done = self.predicted_done
            at = self.submitted_at + p.first_poll if done is None else done
            self._first_scheduled = at
            return at
        assert self.last_pending_at is not None
        estimate = self._tracker.estimate
        if estimate is None or self._first_scheduled is None:
            waited = self.last_pending_at - self.submitted_at
            interval = min(p.max_interval, max(p.min_interval, p.growth * waited))
        else:
            base = max(p.min_miss_interval, p.miss_fraction * estimate)
            interval = min(p.max_interval, base * (2.0 ** (self.gets - 1)))
        return self.last_pending_at + interval

    def observe(self, *, sent_at: float, done: bool) -> None:
        """Record one GET's outcome (``sent_at``: when the GET went out)."""
        self.gets += 1
        first = self.gets == 1
        if not self.learning:
            if done:
                self.finished_at = sent_at
            else:
                self.last_pending_at = sent_at
            return
        if not done:
            self.last_pending_at = sent_at
            if first and self._tracker.estimate is not None:
                self._tracker.update(hit=False)
            return
        self.finished_at = sent_at
        start = max(self.predicted_start, self.submitted_at)
        if self._tracker.estimate is None:
            lower = self.last_pending_at if self.last_pending_at is not None else self.submitted_at
            self._tracker.seed(lower - start)
        elif not first and self.last_pending_at is not None:
            self._tracker.at_least(self.last_pending_at - start)
        elif (
            first
            and self._first_scheduled is not None
            # A first GET sent late (the caller read the result late) says nothing about speed.
            and sent_at <= self._first_scheduled + self._policy.late_tolerance
        ):
            self._tracker.update(hit=True)

    def finished_estimate(self) -> float:
        """Best guess of when the operation finished (middle of the last bracket)."""
        assert self.finished_at is not None
        lower = self.last_pending_at if self.last_pending_at is not None else self.submitted_at
        return (lower + self.finished_at) / 2.0


class PollPlanner:
    """Polling state of one session: learned durations per operation kind, and the queue of
    operations in flight (a session runs its operations in submission order, so an operation's
    predicted start is the predicted end of the one before it)."""

    def __init__(self, policy: PollPolicy | None = None) -> None:
        self.policy = policy or PollPolicy()
        self._trackers: dict[str, DurationTracker] = {}
        self._in_flight: list[OperationPoll] = []
        self._lock = threading.Lock()

    def tracker(self, kind: str) -> DurationTracker:
        with self._lock:
            tracker = self._trackers.get(kind)
            if tracker is None:
                tracker = self._trackers[kind] = DurationTracker(self.policy)
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
