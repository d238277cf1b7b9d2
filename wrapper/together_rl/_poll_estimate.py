"""How long an operation of some work will run, learned from the intervals its kind's GETs
bracketed: pure arithmetic, no clock."""

from __future__ import annotations

import collections
import math

__all__ = ["DurationEstimate"]

_REMEMBERED = 8  # intervals kept per kind: a drift is followed within a few operations
_SPAN = 1.3  # the works must span this ratio before a slope is fitted


class DurationEstimate:
    """One kind's last durations, as intervals ``(work, shortest, longest)`` from its GETs; a line
    through their middles, weighed by how narrow each is, predicts the next, give or take."""

    def __init__(self) -> None:
        self._seen: collections.deque[tuple[float, float, float]] = collections.deque(
            maxlen=_REMEMBERED
        )

    def observe(self, work: float, shortest: float, longest: float) -> None:
        """An operation of ``work`` ran at least ``shortest`` and at most ``longest`` s."""
        if longest >= shortest >= 0 and math.isfinite(longest):
            self._seen.append((work, shortest, longest))

    def predict(self, work: float) -> tuple[float, float] | None:
        """The shortest and longest duration expected of ``work`` (None: nothing like it seen)."""
        if not self._seen:
            return None
        weights = [1 / max(high - low, 1e-4) ** 2 for _, low, high in self._seen]
        middles = [(low + high) / 2 for _, low, high in self._seen]
        works = [w for w, _, _ in self._seen]
        total = sum(weights)
        mean_w = sum(k * w for k, w in zip(weights, works, strict=True)) / total
        mean_d = sum(k * d for k, d in zip(weights, middles, strict=True)) / total
        slope, reach = 0.0, 1.0
        if len(works) < 2 or max(works) <= _SPAN * min(works):
            if not all(w / _SPAN <= work <= w * _SPAN for w in works):
                return self._scaled(work)
        else:
            spread = sum(k * (w - mean_w) ** 2 for k, w in zip(weights, works, strict=True))
            slope = max(0.0, sum(
                k * (w - mean_w) * (d - mean_d)
                for k, w, d in zip(weights, works, middles, strict=True)
            ) / spread)  # fmt: skip
            reach += (work - mean_w) ** 2 * total / spread  # a slope's error grows away
        errors = [
            (high - low) ** 2 / 12 + (d - mean_d - slope * (w - mean_w)) ** 2
            for (w, low, high), d in zip(self._seen, middles, strict=True)
        ]
        variance = sum(k * e for k, e in zip(weights, errors, strict=True)) / total
        spread_d = math.sqrt(variance * reach)
        center = max(0.0, mean_d + slope * (work - mean_w))
        return max(0.0, center - spread_d), center + spread_d

    def _scaled(self, work: float) -> tuple[float, float] | None:
        """Before a slope: the durations of ``work`` if they grow with it, at most in proportion."""
        lows, highs = [], []
        for seen, low, high in self._seen:
            if seen == work or (seen > 0 and work > 0):
                ratio = work / seen if seen > 0 else 1.0
                lows.append(low * min(1.0, ratio))
                highs.append(high * max(1.0, ratio))
        if not lows:
            return None
        low, high = max(lows), min(highs)
        return (low, high) if low <= high else (high, low)
