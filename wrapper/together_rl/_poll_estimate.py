"""How long an operation of some work will run, from the intervals its kind's GETs bracketed:
every duration that a fixed cost plus a cost per unit of work (neither below zero) allows for
the latest operations at once. Pure arithmetic, no clock."""

from __future__ import annotations

import collections
import math

__all__ = ["DurationEstimate"]

_REMEMBERED = 8  # intervals kept per kind
_SLACK = (0.01, 0.001)  # each interval widened by this fraction and these seconds: jitter

Costs = tuple[float, float]  # (fixed, per unit of work), both in seconds


class DurationEstimate:
    """One kind's last durations, as intervals ``(work, shortest, longest)``. The costs that fit
    the newest interval, and as many of the ones before it as fit too, form a convex polygon;
    ``work`` is predicted to run between the least and the most ``fixed + per_work x work``
    over it. A drift or a jump leaves the older intervals out: the prediction follows at once."""

    def __init__(self) -> None:
        self._seen: collections.deque[tuple[float, float, float]] = collections.deque(
            maxlen=_REMEMBERED
        )
        self._costs: list[Costs] = []  # the polygon's corners
        self._worked = False  # an interval in the fit had work: the cost per work is bounded

    def observe(self, work: float, shortest: float, longest: float) -> None:
        """An operation of ``work`` ran at least ``shortest`` and at most ``longest`` s."""
        if longest >= shortest >= 0 and math.isfinite(longest) and work >= 0:
            self._seen.append((work, shortest, longest))
            self._fit()

    def predict(self, work: float) -> tuple[float, float] | None:
        """The shortest and longest duration expected of ``work`` (None: nothing like it seen)."""
        if not self._costs or (work > 0 and not self._worked):
            return None
        durations = [fixed + per_work * work for fixed, per_work in self._costs]
        return max(0.0, min(durations)), max(durations)

    def _fit(self) -> None:
        fraction, seconds = _SLACK
        widened = [(w, low * (1 - fraction) - seconds, high * (1 + fraction) + seconds)
                   for w, low, high in self._seen]  # fmt: skip
        most = max(high for _, _, high in widened)
        per_work = max((high / w for w, _, high in widened if w > 0), default=0.0)
        costs, worked = [(0.0, 0.0), (most, 0.0), (most, per_work), (0.0, per_work)], False
        for work, low, high in reversed(widened):  # the newest first
            fitting = _cut(_cut(costs, work, high, 1.0), work, low, -1.0)
            if not fitting:
                break
            costs, worked = fitting, worked or work > 0
        self._costs, self._worked = costs, worked


def _cut(corners: list[Costs], work: float, limit: float, sign: float) -> list[Costs]:
    """The convex polygon ``corners`` where ``sign x (fixed + per_work x work - limit) <= 0``."""
    out: list[Costs] = []
    for k, here in enumerate(corners):
        there = corners[(k + 1) % len(corners)]
        over_here = sign * (here[0] + work * here[1] - limit)
        over_there = sign * (there[0] + work * there[1] - limit)
        if over_here <= 0:
            out.append(here)
        if (over_here < 0 < over_there) or (over_there < 0 < over_here):
            t = over_here / (over_here - over_there)
            out.append((here[0] + t * (there[0] - here[0]), here[1] + t * (there[1] - here[1])))
    return out
