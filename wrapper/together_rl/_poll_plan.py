"""When the next GET of an operation goes out: pure arithmetic on a clock's times.

Two schedules meet here. The safety schedule keeps the guarantee whatever the durations: after
a GET sent ``e`` s after the operation's latest possible start, the next goes at most
:meth:`PollPolicy.safety_gap` (``e``) later, so an operation done just after a GET is seen
within its bound (a geometric schedule, 1.45 x, between ``min_gap`` and ``max_interval``).
The prediction adds a window of GETs where the operation is expected to end, and its first one
takes the place of a safety GET: the safety GETs before it are counted back from it, so the
prediction costs no GET it does not need and never widens a gap past the bound."""

from __future__ import annotations

import math

from ._poll_policy import SAFETY_MARGIN, PollPolicy

__all__ = ["next_get", "window"]

# After the window's end, GETs whose gaps grow from its spacing this much each, six of them:
# an operation a little later than predicted is seen soon, a much later one by the safety GETs
_OVERRUN_GROWTH = 1.5
_WINDOW_GETS = 24  # a window wider than this many precision gaps is spread over this many GETs


def window(
    policy: PollPolicy, start: tuple[float, float], duration: tuple[float, float]
) -> list[float]:
    """The GETs a prediction asks for: an operation that started between ``start``'s times
    and runs between ``duration``'s ends between the earliest sum and the latest; GETs
    :meth:`PollPolicy.precision_gap` apart over that (just its end when it is narrower), then
    a few more, further and further apart."""
    low, high = start[0] + duration[0], start[1] + duration[1]
    gap = policy.precision_gap(duration[1])
    count = min(_WINDOW_GETS, math.ceil((high - low) / gap - 1e-9))
    points = [low + k * (high - low) / count for k in range(count)] if count > 1 else []
    late = [high + gap * (_OVERRUN_GROWTH**k - 1) / (_OVERRUN_GROWTH - 1) for k in range(1, 7)]
    return [*points, high, *late]


def _latest_before(policy: PollPolicy, target: float, anchor: float) -> float:
    """The earliest time a GET can go out and still have the next, at ``target``, within
    :meth:`PollPolicy.safety_gap`: the safety schedule counted back from ``target``."""
    geometric = SAFETY_MARGIN * policy.lateness
    floor = SAFETY_MARGIN * policy.lateness_floor
    within = min(target - floor, (target + geometric * anchor) / (1 + geometric))
    return max(target - policy.max_interval, within)


def next_get(policy: PollPolicy, last: float, anchor: float | None, planned: list[float]) -> float:
    """When the GET after the one sent at ``last`` goes out (before the first GET, ``last`` is
    when polling began). ``anchor``: the operation's latest possible start (None: unknown,
    as behind an operation not seen done: every gap is then the floor's); ``planned``: the
    prediction's window (:func:`window`), ascending."""
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
