"""The checks of a driver's polling: it goes on through unknown and pending statuses, at a bounded
rate, and stops at COMPLETED or FAILED."""

from __future__ import annotations

from itertools import pairwise

from . import _spec
from ._answer_checks import answered_ok
from ._types import Attempt, CallRecord, Scenario

__all__ = [
    "MAX_POLLS_PER_S",
    "MAX_POLL_GAP_S",
    "poll_pending",
    "poll_rate",
    "poll_unknown",
    "stop_at_terminal",
]

#: While an operation is pending, polls are at most this far apart, and at most this many a second.
MAX_POLL_GAP_S = 3.0
MAX_POLLS_PER_S = 50.0


def _polls(record: CallRecord) -> list[Attempt]:
    """The GETs that polled the operation the call created."""
    poll = _spec.poll_route(record.call.op)
    return record.on(poll.operation_id) if poll else []


def poll_unknown(scenario: Scenario, records: list[CallRecord]) -> str | None:
    for record in records:
        polls = _polls(record)
        odd = [i for i, a in enumerate(polls) if a.fault]
        if not odd:
            return "the operation was never polled, so its unknown status was never seen"
        if odd[-1] == len(polls) - 1:
            last = polls[odd[-1]].fault
            return f"polling stopped at the unknown status '{last}' ({len(polls)} GETs)"
    return answered_ok(scenario, records)


def poll_pending(scenario: Scenario, records: list[CallRecord]) -> str | None:
    for record in records:
        polls = _polls(record)
        held = [a for a in polls if a.fault]
        if not held:
            return "the operation was never polled while it was pending"
        if held[-1] is polls[-1]:
            return f"polling stopped while the operation was pending ({len(polls)} GETs)"
    return answered_ok(scenario, records)


def poll_rate(scenario: Scenario, records: list[CallRecord]) -> str | None:
    for record in records:
        polls = _polls(record)
        for before, after in pairwise(polls):
            if after.arrived - before.arrived > MAX_POLL_GAP_S:
                return f"{after.arrived - before.arrived:.1f} s between two polls"
        if len(polls) >= 2:
            span = polls[-1].arrived - polls[0].arrived
            if len(polls) - 1 > MAX_POLLS_PER_S * max(span, 0.1):
                return f"{len(polls)} GETs in {span:.2f} s"
    return None


def stop_at_terminal(scenario: Scenario, records: list[CallRecord]) -> str | None:
    terminal = {_spec.enum_value("OperationStatus", s) for s in ("COMPLETED", "FAILED")}
    for record in records:
        polls = _polls(record)
        for index, attempt in enumerate(polls):
            status = (
                attempt.answered_json.get("status")
                if isinstance(attempt.answered_json, dict)
                else None
            )
            if status in terminal and index < len(polls) - 1:
                extra = len(polls) - 1 - index
                return f"{extra} GETs after the operation was answered {status}"
        for attempt in record.own():
            status = (
                attempt.answered_json.get("status")
                if isinstance(attempt.answered_json, dict)
                else None
            )
            if status in terminal and polls:
                return f"{len(polls)} GETs after the POST was answered {status}"
    return None
