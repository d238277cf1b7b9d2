"""What a user tunes of the polling schedule (:class:`PollPolicy`), and the small rules around
it: how long a blocking ``result()`` waits, how a resource starting is polled."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DEFAULT_RESULT_TIMEOUT",
    "PollPolicy",
    "poll_wait",
    "readiness_wait",
]

DEFAULT_RESULT_TIMEOUT = 300.0  # how long a blocking `result()` waits, as the official SDK
# A session or model resources starting: the first wait, its growth per GET, the longest wait.
_READINESS = (0.05, 1.5, 5.0)
# The safety schedule spaces GETs this fraction of the guarantee apart: a GET goes out and is
# answered a little after it is planned.
SAFETY_MARGIN = 0.9


@dataclass(frozen=True)
class PollPolicy:
    """The polling schedule's knobs. The guarantee: an operation that is done is seen within
    ``max(lateness_floor, lateness x its duration)`` of finishing (or of its result being asked
    for, if later), whatever the durations are. Predictions of the durations only place GETs
    where the operation is expected to end, ``precision`` x its duration apart; no two GETs of
    an operation are closer than ``min_gap`` and none waits longer than ``max_interval``."""

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
        """How far apart GETs go around the predicted end of an operation of ``duration``:
        half its precision, so that what they teach of its duration is closer than that."""
        return max(self.min_gap, self.precision * duration / 2)


def readiness_wait(attempt: int) -> float:
    """Wait before the ``attempt``-th GET of a session or model resources starting."""
    first, growth, longest = _READINESS
    return float(min(longest, first * growth**attempt))


def poll_wait(next_poll_at: float, now: float, deadline: float | None) -> float | None:
    """Seconds to sleep before the next GET, or None when the deadline comes first."""
    if deadline is not None and next_poll_at > deadline:
        return None
    return max(0.0, next_poll_at - now)
