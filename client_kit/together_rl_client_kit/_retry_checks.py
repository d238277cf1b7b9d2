"""The checks of a driver's retries: which answers it retries, its Idempotency-Keys, how long it
waits (Retry-After, bounded backoff), and that one call creates one operation."""

from __future__ import annotations

from itertools import pairwise

from ._types import CallRecord, Scenario

__all__ = [
    "EARLY_TOLERANCE_S",
    "LATE_TOLERANCE_S",
    "MAX_BACKOFF_S",
    "bounded_backoff",
    "caller_key",
    "fresh_key",
    "no_retry",
    "one_operation",
    "retried",
    "retry_after",
    "same_key",
    "single_attempt",
]

#: Retry-After is honoured when the retry comes no earlier than this before the wait is over
#: (clock granularity) ...
EARLY_TOLERANCE_S = 0.05
#: ... and no later than this after it (a slow interpreter, a loaded machine).
LATE_TOLERANCE_S = 2.5
#: A retry without Retry-After (or Retry-After: 0) waits at most this long.
MAX_BACKOFF_S = 10.0


def no_retry(scenario: Scenario, records: list[CallRecord]) -> str | None:
    for record in records:
        own = record.own()
        if len(own) != 1:
            status = own[0].status if own else None
            return f"{len(own)} attempts of {record.call.op} after a {status} answer (retried)"
    return None


def retried(scenario: Scenario, records: list[CallRecord]) -> str | None:
    for record in records:
        own = record.own()
        faulted = [a for a in own if a.fault]
        if faulted and len(own) <= len(faulted):
            return f"no retry after '{faulted[-1].fault}' ({len(own)} attempts)"
    return None


def same_key(scenario: Scenario, records: list[CallRecord]) -> str | None:
    for record in records:
        keys = [a.key for a in record.own()]
        if not keys or None in keys:
            return f"an attempt of {record.call.op} carried no Idempotency-Key (keys: {keys})"
        if len(set(keys)) != 1:
            return f"the retries of one call carried {len(set(keys))} different keys: {keys}"
    return None


def fresh_key(scenario: Scenario, records: list[CallRecord]) -> str | None:
    firsts = [record.own()[0].key if record.own() else None for record in records]
    if None in firsts or len(set(firsts)) != len(firsts):
        return f"{len(records)} calls were sent with the keys {firsts} (one new key per call)"
    return None


def caller_key(scenario: Scenario, records: list[CallRecord]) -> str | None:
    for record in records:
        given = record.request.get("idempotency_key")
        if given is None:
            continue
        keys = [a.key for a in record.own()]
        if any(key != given for key in keys):
            return f"the caller's key {given!r} was replaced: attempts carried {keys}"
    return None


def one_operation(scenario: Scenario, records: list[CallRecord]) -> str | None:
    for record in records:
        ids = {
            a.upstream_json["id"]
            for a in record.own()
            if isinstance(a.upstream_json, dict) and "id" in a.upstream_json
        }
        if len(ids) > 1:
            return f"one call created {len(ids)} operations: {sorted(ids)}"
    return None


def retry_after(scenario: Scenario, records: list[CallRecord]) -> str | None:
    for record in records:
        own = record.own()
        for before, after in pairwise(own):
            if before.retry_after_wait is None or before.answered is None:
                continue
            waited = after.arrived - before.answered
            wanted = before.retry_after_wait
            if waited < wanted - EARLY_TOLERANCE_S:
                return (
                    f"retried {waited:.3f} s after '{before.fault}', which asked for {wanted:.3f} s"
                )
            if waited > wanted + LATE_TOLERANCE_S:
                return (
                    f"waited {waited:.3f} s after '{before.fault}', which asked for {wanted:.3f} s"
                )
        if any(a.retry_after_wait is not None for a in own) and len(own) < 2:
            return "never retried after the Retry-After answer"
    return None


def bounded_backoff(scenario: Scenario, records: list[CallRecord]) -> str | None:
    for record in records:
        own = record.own()
        for before, after in pairwise(own):
            if before.answered is None:
                continue
            wanted = before.retry_after_wait or 0.0
            waited = after.arrived - before.answered
            if waited > max(wanted, MAX_BACKOFF_S):
                return f"waited {waited:.1f} s before retrying after '{before.fault}'"
    return None


def single_attempt(scenario: Scenario, records: list[CallRecord]) -> str | None:
    for record in records:
        own = record.own()
        if len(own) != 1:
            return (
                f"{len(own)} attempts of a call whose answer was only slow (abandoned or retried)"
            )
    return None
