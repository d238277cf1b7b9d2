"""When the sync and async clients send each GET of an operation, and wait while a resource
starts. No I/O and no sleeping here: the clients ask when the next GET is due, then wait."""

from __future__ import annotations

import collections
import math
import threading
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DEFAULT_RESULT_TIMEOUT",
    "OperationPoll",
    "PollHistory",
    "PollPlanner",
    "PollPolicy",
    "duration_class",
    "poll_wait",
]

DEFAULT_RESULT_TIMEOUT = 300.0  # how long a blocking `result()` waits, as the official SDK


@dataclass(frozen=True)
class PollPolicy:
    """The polling schedule, every setting of it. A session knows an operation kind's duration
    D as an estimate or, warming up, as a bracket (the longest time an operation was seen
    running, the shortest it was seen done), and how D grows with an operation's work (its
    tokens and samples: a slope fitted over the kind's last ``fit_window`` operations seen
    closely, each bracket at most ``fit_width`` bounds wide, once their work spans more than
    ``fit_span`` x; before, in proportion to the work, and so are the warm-up's bounds while
    they agree with that). GETs are planned from an
    operation's predicted start (when the one queued ahead is predicted done); what they teach
    is taken on the safe side of when it could have started (queued behind one not seen done:
    no lower bound). Knowing nothing: at ``first_poll`` (or half the shortest duration learned
    for another kind), then each GET at ``search_growth`` x the time of the one before
    (``queued_search_growth`` with others queued behind it: the next operations of its kind
    are polled densely over the bracket it leaves, so a narrower one costs fewer GETs). A
    bracket: spread geometrically (``min_lateness / 2`` apart at least, its end + ``slack``
    last; when the budget leaves one GET for a bracket wider than ``warmup_spread`` x, its
    geometric middle, the late schedule below going on from there), the first ``warmup_ops``
    operations spending ``warmup_budget`` GETs each on average,
    later ones spaced by ``max(min_lateness, lateness x D)`` until it is that narrow (its end is
    then the estimate; still wide after them, its low end); an operation with others queued
    behind it is spaced so (less ``slack``) from its first, as its end is their start. One that
    may have started before its predicted start (the one ahead seen done between two GETs, or
    found done at once) is polled from as early as that, a bound less ``slack`` apart, up to
    the plan's first GET. Learned: at the predicted end, the
    estimate moving to where ``hit_rate`` of first GETs find the operation done, by steps
    (``step`` of the operation's bound, ``min_step`` at least) that double while they go one way
    (``max_run`` x at most), never past when an operation was seen done; a first GET counts
    when sent within half a bound of its plan (``slack`` at least). After a jump past twice the
    estimate, the earlier one is polled first until an operation is done by then or
    ``fast_misses`` are not. Then every half bound (``late_interval`` at least) for
    ``late_steady`` GETs, then every bound of the time since its start (``late_floor`` at
    least: a rate a service tolerates), so that an operation far slower than planned, or held
    PENDING, is still collected within the bound of how long it took; at most
    ``max_interval``. A session or model resources
    starting: every ``readiness_first``, growing ``readiness_growth`` x per GET up to
    ``readiness_max``."""

    first_poll: float = 0.015
    search_growth: float = 2.0
    queued_search_growth: float = 1.5
    max_interval: float = 1.0
    warmup_budget: float = 3.0
    warmup_ops: int = 4
    warmup_spread: float = 1.3
    lateness: float = 0.05
    min_lateness: float = 0.010
    slack: float = 0.003  # timing noise: added to a bracket's end; a first GET later is no news
    hit_rate: float = 0.7
    fast_misses: int = 3
    step: float = 0.3
    min_step: float = 0.0005
    max_run: float = 64.0
    late_interval: float = 0.002
    late_steady: int = 3
    late_floor: float = 0.020
    fit_window: int = 16
    fit_span: float = 1.5
    fit_width: float = 2.0
    readiness_first: float = 0.05
    readiness_growth: float = 1.5
    readiness_max: float = 5.0
    queue_memory: int = 1024  # operations a session remembers (futures dropped uncollected)

    def bound(self, duration: float) -> float:
        """The lateness the schedule aims at for an operation of ``duration`` (1 ms at least)."""
        return max(self.min_lateness, self.lateness * duration, 0.001)

    def gap(self, duration: float) -> float:
        """How far apart GETs go to hold an operation of ``duration`` within its bound: the
        bound less ``slack`` (a GET goes out and is answered a few ms late)."""
        return self.bound(duration) - self.slack

    def readiness_interval(self, attempt: int) -> float:
        """Wait before the ``attempt``-th GET of a session or model resources starting."""
        growth: float = self.readiness_growth**attempt
        return min(self.readiness_max, self.readiness_first * growth)


class PollHistory(dict[str, float]):
    """Each operation kind's duration as a client learned it (at its reference work), and in
    ``trends`` how it grows with the work (reference work, seconds per unit of work): where the
    client's new sessions start."""

    def __init__(self, *args: Any, **kwargs: float) -> None:
        super().__init__(*args, **kwargs)
        self.trends: dict[str, tuple[float, float]] = {}


class _Kind:
    """One session's knowledge of a kind's duration: ``estimate`` (at the reference work
    ``reference``; ``slope`` seconds more per unit of work above it), or a bracket and its cost.
    Durations given to :meth:`warm` and :meth:`step` are brought to the reference work."""

    def __init__(self, policy: PollPolicy, name: str, history: PollHistory) -> None:
        self.policy, self.name, self.history = policy, name, history
        self.estimate = history.get(name)
        self.reference, self.slope = history.trends.get(name, (math.nan, 0.0))
        self.low, self.high = 0.0, math.inf
        # What the warm-up's GETs saw, by (work, done): the longest seen running at that work,
        # the shortest seen done; its bracket at the reference work
        self.bounds: dict[tuple[float, bool], float] = {}
        self.spent = self.ops = 0
        self.run: float = 1.0  # the last step's size (x the base step) and its direction
        self.up: bool | None = None
        # The estimate before it jumped up more than 2 x (one operation was far slower):
        # polled first, until an operation is done by then (back to it) or `fast_misses` are not.
        self.fast: float | None = None
        self.misses = 0
        self.fitted = self.slope > 0
        # (work, duration, weight) of the last operations seen closely
        self.seen: collections.deque[tuple[float, float, float]] = collections.deque(
            maxlen=policy.fit_window
        )

    def to_reference(
        self, duration: float, work: float, done: bool, proportional: bool = False
    ) -> float:
        """What an operation of ``work`` seen running (or ``done``) ``duration`` after its
        start says of the duration at the reference work. Fitted: less the slope's cost of
        the extra work. Before, ``proportional``: in proportion to the work (a forward-backward's
        time follows its tokens); else only that durations grow with the work, no faster than
        in proportion (a fixed overhead and a cost per unit of work): so a bound, lower
        (running) or upper (done), scaled toward the reference work when that makes it weaker."""
        if self.fitted:
            return duration - self.slope * (work - self.reference)
        if work <= 0 or self.reference <= 0:
            return duration
        ratio = self.reference / work
        if proportional:
            return duration * ratio
        return duration * (max(1.0, ratio) if done else min(1.0, ratio))

    def bracket(self) -> tuple[float, float]:
        """The warm-up's bracket of the duration at the reference work: its bounds taken in
        proportion to the work while they agree with that (the longest seen running shorter
        than the shortest seen done), else as :meth:`to_reference` weakens them."""
        for proportional in (True, False):
            scaled = [
                (self.to_reference(d, w, done, proportional), done)
                for (w, done), d in self.bounds.items()
            ]
            low = max((d for d, done in scaled if not done), default=0.0)
            high = min((d for d, done in scaled if done), default=math.inf)
            if low < high:
                break
        return low, high

    def at_work(self, work: float) -> tuple[float, float]:
        """How a duration at the reference work becomes one at ``work``: (scale, offset), the
        duration d becoming ``d * scale + offset``. Fitted: the slope's cost of the extra work.
        Before: in proportion to the work (an operation's time follows its tokens), which the
        first operations seen closely then correct."""
        if self.fitted or math.isnan(self.reference):
            return 1.0, self.slope * (work - self.reference)
        if work <= 0 or self.reference <= 0:
            return 1.0, 0.0
        return work / self.reference, 0.0

    def set(self, estimate: float) -> None:
        """The new estimate, and the client's for later sessions unless it comes from one
        operation far slower than the others (``fast`` set: not passed on unless confirmed)."""
        self.estimate = max(0.0, estimate)
        if self.fast is None:
            self.history[self.name] = self.estimate

    def plan(self, queued: bool = False) -> list[float]:
        """The planned GETs of an operation at the reference work, as durations after its
        start ([]: search); ``queued``: others wait behind it, so a bracket is not left to the
        warm-up's budget but polled :meth:`PollPolicy.gap` apart: its end is their start."""
        if self.estimate is not None:
            if self.fast is not None and self.fast < self.estimate:
                return [self.fast, self.estimate]
            return [self.estimate]
        if self.high == math.inf:
            return []
        policy = self.policy
        low, high, ops = self.low, self.high + policy.slack, policy.warmup_ops
        if self.ops < ops and low > 0 and not queued:  # the budget left, less a GET per later op
            n = max(1, int(policy.warmup_budget * ops) - self.spent - (ops - 1 - self.ops))
            if n == 1 and high / low > policy.warmup_spread:  # one GET for a wide bracket:
                return [math.sqrt(low * high)]  # its middle, then the late schedule's
            return [low * (high / low) ** (k / n) for k in range(1, n + 1)]
        gap = policy.gap if queued else policy.bound
        points = [low + gap(low)]  # as many GETs as the lateness bound takes
        while points[-1] < high:
            points.append(points[-1] + gap(points[-1]))
        return [*points[:-1], high]

    def warm(self, duration: float, work: float, done: bool) -> None:
        """A warm-up GET saw an operation of ``work`` running or done ``duration`` after its
        start."""
        self.spent += 1
        seen = self.bounds.get((work, done))
        self.bounds[work, done] = (
            duration if seen is None else (min if done else max)(seen, duration)
        )
        self.low, self.high = self.bracket()
        if not done:
            return
        self.ops += 1
        policy = self.policy
        if self.low >= self.high:  # durations vary more than the bracket
            self.set(self.low)
        elif self.high - self.low <= policy.bound(self.low):
            self.set(self.high)
        elif self.ops > policy.warmup_ops:  # still wide: from its low end (a miss is soon seen)
            self.set(self.low if self.low > 0 else self.high / 2)
        elif self.ops == policy.warmup_ops or self.name not in self.history:
            # still wide: later sessions start from its middle (a session of one operation too),
            # from its end when that is within `warmup_spread` (one GET, as the warm-up's last)
            low = max(self.low, policy.min_lateness)
            narrow = self.high <= policy.warmup_spread * low
            self.history[self.name] = self.high if narrow else math.sqrt(low * self.high)

    def step(self, running: float | None, done: float = math.inf, size: float = 0.0) -> None:
        """A learned operation is done: ``running`` is the last time a GET found it running
        (None: its first GET found it done), ``done`` when the next GET found it done; ``size``:
        its predicted duration (the steps are a part of its bound)."""
        assert self.estimate is not None
        policy, before = self.policy, self.estimate
        if self.fast is not None:
            if running is None:  # done by the earlier estimate: the slow one was an exception
                self.set(self.fast)
                self.fast, self.run, self.up = None, 1.0, None
                return
            self.misses += 1
            if self.misses >= policy.fast_misses:  # it did get slower
                self.fast = None
        up = running is not None and running >= self.estimate - policy.slack
        self.run, self.up = min(policy.max_run, 2 * self.run) if up == self.up else 1.0, up
        step = self.run * max(policy.min_step, policy.step * policy.bound(size))
        rise = policy.hit_rate * step
        fall = min((1 - policy.hit_rate) * step, self.estimate / 2)
        self.set(min(self.estimate + rise, done) if up else self.estimate - fall)
        if running is not None and running > self.estimate:  # seen running past it: jump there
            if self.fast is None and running > 2 * before and policy.fast_misses:  # exception?
                self.fast, self.misses = before, 0
            self.set(running)
            self.run, self.up = 1.0, None

    def fit(self, work: float, duration: float, width: float) -> None:
        """An operation of ``work`` took ``duration``, give or take ``width`` / 2: refit the
        slope (least squares weighted by 1 / width², over the last operations seen closely)
        once their work spans more than ``fit_span`` x (closer, noise would make the slope)."""
        self.seen.append((work, duration, 1 / max(width, 1e-4) ** 2))
        works = [w for w, _, _ in self.seen]
        if len(works) < 2 or max(works) <= self.policy.fit_span * min(works):
            return
        total = sum(k for _, _, k in self.seen)
        mean_w = sum(w * k for w, _, k in self.seen) / total
        mean_d = sum(d * k for _, d, k in self.seen) / total
        spread = sum(k * (w - mean_w) ** 2 for w, _, k in self.seen)
        slope = sum(k * (w - mean_w) * (d - mean_d) for w, d, k in self.seen) / spread
        self.slope, self.fitted = max(0.0, slope), True
        self.set(mean_d + self.slope * (self.reference - mean_w))
        self.history.trends[self.name] = (self.reference, self.slope)


class OperationPoll:
    """The GET schedule of one operation (of ``work``: its tokens and samples, in the unit its
    kind is learned in); its outcomes teach its kind."""

    def __init__(
        self,
        kind: _Kind,
        submitted_at: float,
        start: float,
        work: float = 0.0,
        planner: PollPlanner | None = None,
    ) -> None:
        self._kind, self.submitted_at, self.start, self.gets = kind, submitted_at, start, 0
        self.work, self._planner = work, planner
        # When it started at the earliest and at the latest (what its GETs teach is taken
        # on the safe side): at once when nothing was ahead of it, after the one ahead finished.
        self.started_after, self.started_by = submitted_at, start
        # When it most plausibly started at the earliest: the one ahead's earliest_finish()
        self.earliest_start: float | None = None
        if math.isnan(kind.reference):
            kind.reference = work  # the kind's first operation sets it
        self.last_pending_at: float | None = None
        self.finished_at: float | None = None
        self._scale = (1.0, 0.0)  # the plan and the scaling to the work, fixed by the first GET
        self._points: list[float] = []
        self._predicted: float | None = None
        self._learned = False

    def finish(self) -> None:
        """The operation is over, or its caller gave up: its session's queue moves on."""
        if self._planner is not None:
            self._planner.finished(self)

    def likely_finished_at(self) -> float | None:
        """When the operation is taken to have finished, for those queued behind it: mid-way
        between the GET that last found it running and the one that found it done, or half a
        bound after the first when they are wider apart (an early guess costs the one behind a
        GET, a late one its lateness); found done at once, when it was predicted done (if that
        is before), else mid-way from its predicted start. None: not seen done."""
        if self.finished_at is None:
            return None
        if self.last_pending_at is not None:
            bound = self._kind.policy.bound(self.last_pending_at - self.start)
            return min(
                (self.last_pending_at + self.finished_at) / 2, self.last_pending_at + bound / 2
            )
        predicted = self.predicted_done()
        if predicted is not None and self.start <= predicted <= self.finished_at:
            return predicted
        return (self.earliest_finish() + self.finished_at) / 2

    def earliest_finish(self) -> float:
        """When the operation, seen done, most plausibly finished at the earliest: when a GET
        last found it running; else half a bound before it was predicted done, or (warming up)
        its bracket's low end after it could have started."""
        assert self.finished_at is not None
        if self.last_pending_at is not None:
            return self.last_pending_at
        predicted = self.predicted_done()
        if predicted is not None:
            predicted = min(predicted, self.finished_at)
            return predicted - self._kind.policy.bound(predicted - self.start) / 2
        start = self.start if self.earliest_start is None else min(self.start, self.earliest_start)
        return min(start + self._at_work(self._kind.low), self.finished_at)

    def predicted_done(self) -> float | None:
        """When the operation is predicted done (None: its kind is warming up), as its first
        GET fixed it (what that GET taught its kind moves later predictions, not this one)."""
        if self.gets:
            return self._predicted
        estimate = self._kind.estimate
        return None if estimate is None else self.start + self._at_work(estimate)

    def _at_work(self, duration: float) -> float:
        scale, offset = self._scale if self.gets else self._kind.at_work(self.work)
        return max(0.0, duration * scale + offset)

    def _plan(self) -> list[float]:
        """The planned GETs: as the first GET fixed them, or as they stand before it. When
        it may have started before its predicted start, GETs from half a gap
        (:meth:`PollPolicy.gap`) after that plan's first were it started then, up to the plan's
        first, at most a gap apart."""
        if self.gets:
            return self._points
        points = [self.start + self._at_work(d) for d in self._kind.plan(self._queued())]
        earliest = self.earliest_start
        if not points or earliest is None or earliest >= self.start:
            return points
        policy = self._kind.policy
        gap = policy.gap(points[0] - self.start)
        first = points[0] - (self.start - earliest) + gap / 2
        if first >= points[0] - gap / 2:  # the plan's first is soon enough
            return points
        n = math.ceil((points[0] - first) / gap)
        return [first + k * (points[0] - first) / n for k in range(n)] + points

    def _queued(self) -> bool:
        """Whether operations wait behind this one in its session's queue."""
        return self._planner is not None and self._planner.queued_behind(self)

    def _planned_reference(self, at: float) -> float:
        """A time of this operation, brought to the reference work as its plan was scaled."""
        scale, offset = self._scale
        return (at - self.start - offset) / scale if scale > 0 else at - self.start

    def _planned_size(self) -> float:
        """The duration its plan predicted (its kind learned when the first GET went out)."""
        assert self._predicted is not None
        return self._predicted - self.start

    def _on_time(self) -> float:
        """How late a first GET may go out and still say the operation was done when planned:
        half the bound (a loaded machine's timers run late by a few ms)."""
        policy = self._kind.policy
        return max(policy.slack, policy.bound(self._points[0] - self.start) / 2)

    def next_poll_at(self) -> float:
        """Absolute (clock) time of the next GET (a query: nothing changes)."""
        p, points = self._kind.policy, self._plan()
        if self.gets < len(points):
            last = -math.inf if self.last_pending_at is None else self.last_pending_at
            return max(points[self.gets], last + p.min_lateness / 2)
        if self.gets == 0:
            kind = self._kind
            other = min((d for k, d in list(kind.history.items()) if k != kind.name), default=0)
            return self.start + max(p.first_poll, 0.5 * other)  # half the shortest other kind
        assert self.last_pending_at is not None
        if points:  # later than planned: every half bound, then a bound of the time so far
            interval = max(p.late_interval, p.bound(points[-1] - self.start) / 2)
            if self.gets - len(points) > p.late_steady:
                late = self.last_pending_at - self.start
                interval = max(interval, p.late_floor, p.bound(late))
            return self.last_pending_at + min(p.max_interval, interval)
        waited = self.last_pending_at - self.start
        growth = p.queued_search_growth if self._queued() else p.search_growth
        grown = (growth - 1) * waited
        return self.last_pending_at + min(p.max_interval, max(p.first_poll, grown))

    def observe(self, *, sent_at: float, done: bool) -> None:
        """Record one GET's outcome (``sent_at``: when the GET went out)."""
        kind = self._kind
        if self.gets == 0:
            self._predicted = self.predicted_done()
            self._points, self._scale = self._plan(), self._kind.at_work(self.work)
            self._learned = kind.estimate is not None
        self.gets += 1
        if done:
            self.finished_at = sent_at
        else:
            self.last_pending_at = sent_at
        learned, after, by = self._learned, self.started_after, self.started_by
        if not learned and kind.estimate is None:
            kind.warm(sent_at - (after if done else by), self.work, done)
        elif learned and done and self.last_pending_at is not None:  # (as the plan was made)
            # on the safe side of the start: running since its latest, done since its earliest
            latest = max(self.start, by) if math.isfinite(by) else self.start
            running = self._planned_reference(self.last_pending_at - (latest - self.start))
            done_in = self._planned_reference(sent_at + (self.start - min(self.start, after)))
            kind.step(running, done_in, self._planned_size())
        elif learned and done and sent_at <= self._points[0] + self._on_time():  # (late: no news)
            kind.step(None, size=self._planned_size())  # done when planned
        if done and self.last_pending_at is not None and math.isfinite(by):
            longest, shortest = sent_at - after, self.last_pending_at - by
            # seen closely: its middle within the bound of the duration
            if longest - shortest <= kind.policy.fit_width * kind.policy.bound(longest):
                kind.fit(self.work, (longest + shortest) / 2, longest - shortest)


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

    def submitted(self, kind: str, now: float, work: float = 0.0) -> OperationPoll:
        """Register an acknowledged submission (of ``work``) and return its polling plan."""
        with self._lock:
            state = self._kinds.get(kind)
            if state is None:
                state = self._kinds[kind] = _Kind(self.policy, kind, self.history)
            ahead = self._queue[-1].predicted_done() if self._queue else None
            poll = OperationPoll(state, now, max(now, ahead or now), work, self)
            if self._queue and (ahead is None or ahead > now):  # it starts when that one ends
                poll.started_by = math.inf
            self._queue.append(poll)
            del self._queue[: -self.policy.queue_memory]
            return poll

    def queued_behind(self, poll: OperationPoll) -> bool:
        """Whether operations wait behind ``poll`` in the session's queue."""
        with self._lock:
            return poll in self._queue and self._queue[-1] is not poll

    def attached(self, kind: str, now: float) -> OperationPoll:
        """An operation collected by id: not queued, searched for from ``now``, teaching nothing."""
        return OperationPoll(_Kind(self.policy, kind, PollHistory()), now, now)

    def finished(self, poll: OperationPoll) -> None:
        """The operation is over (or its caller gave up): those queued behind it, not polled
        yet, start no earlier than it most likely finished (:meth:`likely_finished_at`)."""
        with self._lock:
            if poll not in self._queue:
                return
            index = self._queue.index(poll)
            del self._queue[index]
            if index < len(self._queue) and poll.finished_at is not None:
                after = poll.started_after if poll.last_pending_at is None else poll.last_pending_at
                behind = self._queue[index]
                behind.started_after = max(behind.submitted_at, after)
                behind.started_by = max(behind.submitted_at, poll.finished_at)
                behind.earliest_start = poll.earliest_finish()
            start = poll.likely_finished_at()
            for later in self._queue[index:]:
                if start is None:
                    break
                if later.gets == 0:
                    later.start = max(later.submitted_at, start)
                start = later.predicted_done()


def poll_wait(next_poll_at: float, now: float, deadline: float | None) -> float | None:
    """Seconds to sleep before the next GET, or None when the deadline comes first."""
    if deadline is not None and next_poll_at > deadline:
        return None
    return max(0.0, next_poll_at - now)


def duration_class(kind: str, forward_only: bool = False) -> str:
    """The name an operation's duration is learned under: its kind, and a forward-only
    forward-backward apart (it is much shorter than a pass with a backward)."""
    return kind + (":forward" if forward_only else "")
