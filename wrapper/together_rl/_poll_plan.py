"""The polling schedule, pure arithmetic on a clock's times: its knobs (:class:`PollPolicy`), when
the next GET goes out (durations are :mod:`._poll_estimate`'s to predict); readiness.

The safety schedule keeps the guarantee whatever the durations: the GET after one sent ``e`` s
after the operation's latest possible start goes at most :meth:`PollPolicy.safety_gap` (``e``)
later (geometric, 1.45 x). A prediction adds a window of GETs where the operation is expected to
end; the safety GETs before it are counted back from its first: it never widens a gap."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DEFAULT_RESULT_TIMEOUT",
    "PollPolicy",
    "next_get",
    "poll_wait",
    "readiness_wait",
    "window",
]

DEFAULT_RESULT_TIMEOUT = 300.0  # how long a blocking `result()` waits, as the official SDK
# A session or model resources starting: the first wait, its growth per GET, the longest wait.
_READINESS = (0.05, 1.5, 5.0)
SAFETY_MARGIN = 0.9  # safety GETs go this fraction of the bound apart: a GET goes out late


@dataclass(frozen=True)
class PollPolicy:
    """The polling schedule's knobs. The guarantee: an operation that is done is seen within
    ``max(lateness_floor, lateness x its duration)`` of finishing (or of its result being asked
    for, if later), whatever the durations are. Predictions of the durations only add GETs where
    the operation is expected to end, to see it within ``precision`` x its duration; no two GETs
    of an operation are closer than ``min_gap`` and none waits longer than ``max_interval``."""

    lateness: float = 0.5
    lateness_floor: float = 0.05
    precision: float = 0.05
    min_gap: float = 0.005
    max_interval: float = 1.0

    def __post_init__(self) -> None:
        if not 0 < self.min_gap <= SAFETY_MARGIN * self.lateness_floor:
            raise ValueError(
                f"min_gap must be above 0 and at most {SAFETY_MARGIN} x lateness_floor "
                f"({SAFETY_MARGIN * self.lateness_floor} s), got {self.min_gap}"
            )
        if self.max_interval < self.min_gap or self.lateness <= 0 or self.precision <= 0:
            raise ValueError(
                "max_interval must be at least min_gap, lateness and precision above 0, got "
                f"{self.max_interval}, {self.lateness}, {self.precision}"
            )

    def safety_gap(self, elapsed: float) -> float:
        """The longest wait after a GET sent ``elapsed`` s after the operation's latest
        possible start: it keeps the guarantee for any operation still running then."""
        bound = max(self.lateness_floor, self.lateness * max(0.0, elapsed))
        return max(self.min_gap, min(self.max_interval, SAFETY_MARGIN * bound))

    def precision_gap(self, duration: float) -> float:
        """GETs around a predicted end go half the precision of ``duration`` apart."""
        return max(self.min_gap, self.precision * duration / 2)


def readiness_wait(attempt: int) -> float:
    """Wait before the ``attempt``-th GET of a starting session or model resources."""
    first, growth, longest = _READINESS
    return float(min(longest, first * growth**attempt))


def poll_wait(next_poll_at: float, now: float, deadline: float | None) -> float | None:
    """Seconds to sleep before the next GET, or None when the deadline comes first."""
    late = deadline is not None and next_poll_at > deadline
    return None if late else max(0.0, next_poll_at - now)


_OVERRUN_GROWTH = 1.5  # six GETs after a window's end, gaps growing this much: late, seen soon
_WINDOW_GETS, _SPREAD_GETS = 64, 24  # a window needing more for its precision: 24, evenly


def window(
    policy: PollPolicy, start: tuple[float, float], duration: tuple[float, float]
) -> list[float]:
    """The GETs a prediction asks for: an operation that started within ``start`` and runs within
    ``duration`` ends between the sums; GETs over that, each :meth:`PollPolicy.precision_gap` of
    the shortest duration ending there after the one before; then six, further and further apart."""
    low, high = start[0] + duration[0], start[1] + duration[1]
    points = [low]  # each GET sees one that ended since the GET before within its precision
    while points[-1] < high - 1e-9 and len(points) <= _WINDOW_GETS:
        shortest = max(duration[0], points[-1] - start[1])  # of the durations ending there
        points.append(points[-1] + policy.precision_gap(shortest))
    if points[-1] < high - 1e-9:  # too vague for the precision: the GETs spread evenly over it
        points = [low + k * (high - low) / _SPREAD_GETS for k in range(_SPREAD_GETS + 1)]
    gap = policy.precision_gap(duration[1])
    late = [high + gap * (_OVERRUN_GROWTH**k - 1) / (_OVERRUN_GROWTH - 1) for k in range(1, 7)]
    return [*points[1:-1], high, *late]


def _latest_before(policy: PollPolicy, target: float, anchor: float) -> float:
    """The safety schedule counted back one GET from ``target``."""
    geometric = SAFETY_MARGIN * policy.lateness
    floor = SAFETY_MARGIN * policy.lateness_floor
    within = min(target - floor, (target + geometric * anchor) / (1 + geometric))
    return max(target - policy.max_interval, within)


def next_get(policy: PollPolicy, last: float, anchor: float | None, planned: list[float]) -> float:
    """When the GET after the one at ``last`` (or polling's start) goes out. ``anchor``: the
    operation's latest possible start (None: unknown, behind an operation not seen done: every
    gap is then the floor's); ``planned``: the prediction's window (:func:`window`), ascending."""
    reach = last + policy.safety_gap(0.0 if anchor is None else last - anchor)
    soonest = last + policy.min_gap
    target = next((max(t, soonest) for t in planned if t > last), None)
    if target is None or target <= reach or anchor is None:
        return reach if target is None or target > reach else target
    while target > reach:  # count the safety schedule back from the window's first GET
        earlier = _latest_before(policy, target, anchor)
        if earlier <= soonest:
            return reach
        target = earlier
    return target
