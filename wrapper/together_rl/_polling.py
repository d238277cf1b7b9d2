"""When the sync and async clients send each GET of an operation, and wait while a resource
starts. No I/O and no sleeping here: the clients ask when the next GET is due, then wait."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

__all__ = [
    "DEFAULT_RESULT_TIMEOUT",
    "OperationPoll",
    "PollHistory",
    "PollPlanner",
    "PollPolicy",
    "duration_class",
    "poll_wait",
    "readiness_interval",
]

DEFAULT_RESULT_TIMEOUT = 300.0  # how long a blocking `result()` waits, as the official SDK
WARMUP_OPS = 4  # the warm-up budget is over a kind's first 4 operations
SLACK = 0.003  # timing noise: added to a bracket's end; a first GET later than that is not news


@dataclass(frozen=True)
class PollPolicy:
    """The polling schedule. A session knows an operation kind's duration D as an estimate or,
    warming up, as a bracket (the longest time an operation was seen running, the shortest it
    was seen done). GETs are planned from an operation's predicted start (when the one queued
    ahead is predicted done). Knowing nothing: at ``first_poll`` (or half the shortest duration
    learned for another kind), then every 2 x the time waited. A bracket: spread geometrically
    (``min_lateness / 2`` apart at least), the first 4 operations spending ``warmup_budget``
    GETs each on average, later ones spaced by ``max(min_lateness, lateness x D)`` until it is
    that narrow (its end is then the estimate). Learned: at the predicted end, the estimate
    moving to where 70 % of first GETs find the operation done, by steps that double while
    they go one way. Then every ``lateness / 2`` of D, doubling, at most ``max_interval``."""

    first_poll: float = 0.015
    max_interval: float = 1.0
    warmup_budget: float = 3.0
    lateness: float = 0.05
    min_lateness: float = 0.010

    def bound(self, duration: float) -> float:
        """The lateness the schedule aims at for an operation of ``duration`` (1 ms at least)."""
        return max(self.min_lateness, self.lateness * duration, 0.001)


class PollHistory(dict[str, float]):
    """Each operation kind's duration as a client learned it: where its new sessions start."""


class _Kind:
    """One session's knowledge of a kind's duration: ``estimate``, or a bracket and its cost."""

    def __init__(self, policy: PollPolicy, name: str, history: PollHistory) -> None:
        self.policy, self.name, self.history = policy, name, history
        self.estimate = history.get(name)
        self.low, self.high = 0.0, math.inf
        self.spent = self.ops = 0
        self.run: float = 1.0  # the last step's size (x the base step) and its direction
        self.up: bool | None = None

    def set(self, estimate: float) -> None:
        self.estimate = self.history[self.name] = max(0.0, estimate)

    def plan(self) -> list[float]:
        """The planned GETs of an operation, as durations after its start ([]: search)."""
        if self.estimate is not None:
            return [self.estimate]
        if self.high == math.inf:
            return []
        low, high, policy = self.low, self.high + SLACK, self.policy
        if self.ops < WARMUP_OPS and low > 0:  # the budget left, less a GET per later operation
            n = int(policy.warmup_budget * WARMUP_OPS) - self.spent - (WARMUP_OPS - 1 - self.ops)
            return [low * (high / low) ** (k / max(1, n)) for k in range(1, max(1, n) + 1)]
        points = [low + policy.bound(low)]  # as many GETs as the lateness bound takes
        while points[-1] < high:
            points.append(points[-1] + policy.bound(points[-1]))
        return [*points[:-1], high]

    def warm(self, duration: float, done: bool) -> None:
        """A warm-up GET saw the operation running or done ``duration`` after its start."""
        self.spent += 1
        if not done:
            self.low = max(self.low, duration)
            return
        self.high, self.ops = min(self.high, duration), self.ops + 1
        if self.low >= self.high:  # durations vary more than the bracket
            self.set(self.low)
        elif self.high - self.low <= self.policy.bound(self.low) or self.ops > WARMUP_OPS:
            self.set(self.high)
        elif self.ops == WARMUP_OPS:  # still wide: later sessions start from its middle
            low = max(self.low, self.policy.min_lateness)
            self.history[self.name] = math.sqrt(low * self.high)

    def step(self, up: bool, running: float = 0.0) -> None:
        """A learned operation is done: its first GET found it done, or running (``up``)."""
        assert self.estimate is not None
        self.run, self.up = min(64.0, 2 * self.run) if up == self.up else 1.0, up
        step = self.run * max(0.0005, 0.02 * self.estimate)
        rise, fall = 0.7 * step, min(0.3 * step, self.estimate / 2)  # 70 % of first GETs hit
        self.set(self.estimate + rise if up else self.estimate - fall)
        if running > self.estimate:  # seen running past it (it got slower): jump there
            self.set(running)
            self.run, self.up = 1.0, None


class OperationPoll:
    """The GET schedule of one operation; its outcomes teach its kind."""

    def __init__(self, kind: _Kind, submitted_at: float, start: float) -> None:
        self._kind, self.submitted_at, self.start, self.gets = kind, submitted_at, start, 0
        self.last_pending_at: float | None = None
        self.finished_at: float | None = None
        self._points: list[float] = []
        self._learned = False

    def predicted_done(self) -> float | None:
        return None if self._kind.estimate is None else self.start + self._kind.estimate

    def next_poll_at(self) -> float:
        """Absolute (clock) time of the next GET."""
        kind, p = self._kind, self._kind.policy
        if self.gets == 0:
            self._learned = kind.estimate is not None
            self._points = [self.start + d for d in kind.plan()]
        if self.gets < len(self._points):
            last = -math.inf if self.last_pending_at is None else self.last_pending_at
            return max(self._points[self.gets], last + p.min_lateness / 2)  # 5 ms apart at least
        if self.gets == 0:
            other = min((d for k, d in list(kind.history.items()) if k != kind.name), default=0)
            return self.start + max(p.first_poll, 0.5 * other)  # half the shortest other kind
        assert self.last_pending_at is not None
        if self._points:  # later than planned: every half bound, doubling
            misses = self.gets - len(self._points)
            base = max(0.002, p.lateness / 2 * (self._points[-1] - self.start))
            return self.last_pending_at + min(p.max_interval, base * 2.0**misses)
        waited = self.last_pending_at - self.start
        return self.last_pending_at + min(p.max_interval, max(p.first_poll, 2 * waited))

    def observe(self, *, sent_at: float, done: bool) -> None:
        """Record one GET's outcome (``sent_at``: when the GET went out)."""
        self.gets += 1
        if done:
            self.finished_at = sent_at
        else:
            self.last_pending_at = sent_at
        kind, learned = self._kind, self._learned
        if not learned and kind.estimate is None:
            kind.warm(sent_at - self.start, done)
        elif learned and done and self.last_pending_at is not None:
            kind.step(True, self.last_pending_at - self.start)
        elif learned and done and sent_at <= self._points[0] + SLACK:  # (late: no news)
            kind.step(False)


class PollPlanner:
    """The polling state of one session: what it knows of each kind (from the client's
    ``history`` at first), and its operations in flight: a session runs them in submission
    order, so one is predicted to start when the one ahead is predicted done."""

    def __init__(
        self, policy: PollPolicy | None = None, history: PollHistory | None = None
    ) -> None:
        self.policy = policy or PollPolicy()
        self.history = history if history is not None else PollHistory()
        self._kinds: dict[str, _Kind] = {}
        self._queue: list[OperationPoll] = []
        self._lock = threading.Lock()

    def submitted(self, kind: str, now: float) -> OperationPoll:
        """Register an acknowledged submission and return its polling plan."""
        with self._lock:
            state = self._kinds.setdefault(kind, _Kind(self.policy, kind, self.history))
            ahead = self._queue[-1].predicted_done() if self._queue else None
            poll = OperationPoll(state, now, max(now, ahead or now))
            self._queue.append(poll)
            del self._queue[:-1024]  # futures dropped without being collected
            return poll

    def attached(self, kind: str, now: float) -> OperationPoll:
        """An operation collected by id: not queued, searched for from ``now``, teaching nothing."""
        return OperationPoll(_Kind(self.policy, kind, PollHistory()), now, now)

    def finished(self, poll: OperationPoll) -> None:
        """The operation is over (or its caller gave up): those queued behind it, not polled
        yet, start no earlier than it most likely finished (mid-way between its last GETs)."""
        with self._lock:
            if poll not in self._queue:
                return
            index = self._queue.index(poll)
            del self._queue[index]
            lower = poll.submitted_at if poll.last_pending_at is None else poll.last_pending_at
            start = None if poll.finished_at is None else (lower + poll.finished_at) / 2
            for later in self._queue[index:]:
                if start is None:
                    break
                if later.gets == 0:
                    later.start = max(later.submitted_at, start)
                start = later.predicted_done()


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
