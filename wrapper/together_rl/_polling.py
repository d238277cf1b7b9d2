"""A session's operations in flight, run in order (one starts when the one ahead finishes). No I/O:
the clients ask :meth:`OperationPoll.next_poll_at`, wait, GET, and report to ``observe``."""

from __future__ import annotations

import threading

from ._poll_estimate import DurationEstimate
from ._poll_plan import PollPolicy, next_get, window

__all__ = ["OperationPoll", "PollPlanner", "PollPolicy"]


class OperationPoll:
    """The GETs of one operation of ``work``, submitted at ``submitted_at`` behind ``ahead``."""

    def __init__(
        self,
        planner: PollPlanner,
        estimate: DurationEstimate,
        submitted_at: float,
        work: float,
        ahead: OperationPoll | None,
    ) -> None:
        self._planner, self._estimate, self.work = planner, estimate, work
        self.submitted_at, self._ahead, self.gets = submitted_at, ahead, 0
        self.last_pending_at: float | None = None  # the last GET that found it running
        self.finished_at: float | None = None  # the GET that found it done
        self._start: tuple[float, float | None] | None = None  # fixed once seen done

    def start_bounds(self) -> tuple[float, float | None]:
        """Its earliest and latest start (None: the one ahead not yet seen done)."""
        if self._start is not None:
            return self._start
        ahead, submitted = self._ahead, self.submitted_at
        if ahead is None:
            return submitted, submitted
        if ahead.finished_at is None:
            return submitted, None
        pending = ahead.last_pending_at
        earliest = ahead.start_bounds()[0] if pending is None else pending
        return max(submitted, earliest), max(submitted, ahead.finished_at)

    def next_poll_at(self) -> float:
        """When the next GET is due, on the client's clock (a time past: at once)."""
        policy = self._planner.policy
        with self._planner.lock:
            early, late = self.start_bounds()
            predicted = None if late is None else self._estimate.predict(self.work)
        planned = window(policy, (early, late), predicted) if predicted and late is not None else []
        last = self.last_pending_at
        if last is None:  # it may have finished as soon as it could have started
            last = early
        return next_get(policy, last, late, planned)

    def observe(self, *, sent_at: float, done: bool) -> None:
        """A GET sent at ``sent_at`` saw it ``done`` or not; seen done, it teaches its kind."""
        with self._planner.lock:
            self.gets += 1
            if not done:
                self.last_pending_at = max(sent_at, self.last_pending_at or sent_at)
                return
            if self.finished_at is not None:
                return
            self.finished_at = sent_at
            early, late = self._start = self.start_bounds()
            self._ahead = None  # those behind read its times, not the ones ahead of it
            latest = sent_at if late is None else late
            pending = self.last_pending_at
            shortest = 0.0 if pending is None else max(0.0, pending - latest)
            self._estimate.observe(self.work, shortest, sent_at - early)


class PollPlanner:
    """One session's polling: each kind's durations, and the last operation submitted."""

    def __init__(self, policy: PollPolicy | None = None) -> None:
        self.policy = policy or PollPolicy()
        self.lock = threading.Lock()
        self._estimates: dict[str, DurationEstimate] = {}
        self._last: OperationPoll | None = None

    def submitted(
        self, kind: str, now: float, work: float = 0.0, done: bool = False
    ) -> OperationPoll:
        """An acknowledged submission of ``work`` (``done``: the answer was terminal)."""
        with self.lock:
            estimate = self._estimates.setdefault(kind, DurationEstimate())
            poll = OperationPoll(self, estimate, now, work, self._last)
            self._last = poll
        if done:
            poll.observe(sent_at=now, done=True)
        return poll

    def attached(self, kind: str, now: float) -> OperationPoll:
        """An operation collected by id: polled as if it started ``now``, teaching nothing."""
        return OperationPoll(self, DurationEstimate(), now, 0.0, None)
