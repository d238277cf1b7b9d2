"""The rules a client must follow, each judged from the traffic the referee saw (never from what
the driver says, except the value or error it hands back to its caller).

A check returns None when the rule held, else the evidence, in words. Besides its rules, every
scenario is judged on its `expect` (:func:`expect_problem`): a result or an error, its status, its
error code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import orjson

from . import _spec
from ._types import Attempt, CallRecord, Scenario

__all__ = ["RULES", "Rule", "check_rule", "expect_problem"]

#: Retry-After is honoured when the retry comes no earlier than this before the wait is over
#: (clock granularity) ...
EARLY_TOLERANCE_S = 0.05
#: ... and no later than this after it (a slow interpreter, a loaded machine).
LATE_TOLERANCE_S = 2.5
#: A retry without Retry-After (or Retry-After: 0) waits at most this long.
MAX_BACKOFF_S = 10.0
#: While an operation is pending, polls are at most this far apart, and at most this many a second.
MAX_POLL_GAP_S = 3.0
MAX_POLLS_PER_S = 50.0


def _polls(record: CallRecord) -> list[Attempt]:
    """The GETs that polled the operation the call created."""
    poll = _spec.poll_route(record.call.op)
    return record.on(poll.operation_id) if poll else []


Check = Callable[[Scenario, list[CallRecord]], "str | None"]


@dataclass(frozen=True)
class Rule:
    name: str
    text: str
    check: Check


def _answered_ok(scenario: Scenario, records: list[CallRecord]) -> str | None:
    for record in records:
        problem = _ok_problem(record, True)
        if problem:
            return problem
        problem = _compare(record.expected, (record.answer or {}).get("result"))
        if problem:
            return f"call {record.request['id']} handed back the wrong result: {problem}"
    return None


def _ok_problem(record: CallRecord, ok: bool) -> str | None:
    answer = record.answer or {}
    if answer.get("ok") is ok:
        return None
    wanted = "a result" if ok else "an error"
    return f"call {record.request['id']} should be handed back {wanted}, answered {_short(answer)}"


def _status_problem(record: CallRecord, status: int) -> str | None:
    answer = record.answer or {}
    if answer.get("ok") is False and (answer.get("error") or {}).get("status") == status:
        return None
    return (
        f"call {record.request['id']} should fail with status {status}, answered {_short(answer)}"
    )


def _code_problem(record: CallRecord, code: str) -> str | None:
    answer = record.answer or {}
    message = str((answer.get("error") or {}).get("message", ""))
    if answer.get("ok") is not False:
        return f"the FAILED operation ({code}) was handed back as a success: {_short(answer)}"
    if code.split("_ERROR_CODE_")[-1] not in message:
        return f"the error handed back does not name {code}: {message[:200]!r}"
    return None


def expect_problem(scenario: Scenario, records: list[CallRecord]) -> str | None:
    """Every field of the scenario's `expect`, for every call: a result or an error (`ok`), the
    error's HTTP `status` and the operation `error_code` it names, when given."""
    expect = scenario.expect
    for record in records:
        problem = (
            _ok_problem(record, expect.ok)
            or (_status_problem(record, expect.status) if expect.status is not None else None)
            or (_code_problem(record, expect.error_code) if expect.error_code else None)
        )
        if problem:
            return problem
    return None


def _error_status(scenario: Scenario, records: list[CallRecord]) -> str | None:
    status = scenario.expect.status
    if status is None:
        return "the scenario expects no status: a broken scenario"
    return next(filter(None, (_status_problem(record, status) for record in records)), None)


def _no_retry(scenario: Scenario, records: list[CallRecord]) -> str | None:
    for record in records:
        own = record.own()
        if len(own) != 1:
            status = own[0].status if own else None
            return f"{len(own)} attempts of {record.call.op} after a {status} answer (retried)"
    return None


def _retried(scenario: Scenario, records: list[CallRecord]) -> str | None:
    for record in records:
        own = record.own()
        faulted = [a for a in own if a.fault]
        if faulted and len(own) <= len(faulted):
            return f"no retry after '{faulted[-1].fault}' ({len(own)} attempts)"
    return None


def _same_key(scenario: Scenario, records: list[CallRecord]) -> str | None:
    for record in records:
        keys = [a.key for a in record.own()]
        if not keys or None in keys:
            return f"an attempt of {record.call.op} carried no Idempotency-Key (keys: {keys})"
        if len(set(keys)) != 1:
            return f"the retries of one call carried {len(set(keys))} different keys: {keys}"
    return None


def _fresh_key(scenario: Scenario, records: list[CallRecord]) -> str | None:
    firsts = [record.own()[0].key if record.own() else None for record in records]
    if None in firsts or len(set(firsts)) != len(firsts):
        return f"{len(records)} calls were sent with the keys {firsts} (one new key per call)"
    return None


def _caller_key(scenario: Scenario, records: list[CallRecord]) -> str | None:
    for record in records:
        given = record.request.get("idempotency_key")
        if given is None:
            continue
        keys = [a.key for a in record.own()]
        if any(key != given for key in keys):
            return f"the caller's key {given!r} was replaced: attempts carried {keys}"
    return None


def _one_operation(scenario: Scenario, records: list[CallRecord]) -> str | None:
    for record in records:
        ids = {
            a.upstream_json["id"]
            for a in record.own()
            if isinstance(a.upstream_json, dict) and "id" in a.upstream_json
        }
        if len(ids) > 1:
            return f"one call created {len(ids)} operations: {sorted(ids)}"
    return None


def _retry_after(scenario: Scenario, records: list[CallRecord]) -> str | None:
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


def _bounded_backoff(scenario: Scenario, records: list[CallRecord]) -> str | None:
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


def _single_attempt(scenario: Scenario, records: list[CallRecord]) -> str | None:
    for record in records:
        own = record.own()
        if len(own) != 1:
            return (
                f"{len(own)} attempts of a call whose answer was only slow (abandoned or retried)"
            )
    return None


def _poll_unknown(scenario: Scenario, records: list[CallRecord]) -> str | None:
    for record in records:
        polls = _polls(record)
        odd = [i for i, a in enumerate(polls) if a.fault]
        if not odd:
            return "the operation was never polled, so its unknown status was never seen"
        if odd[-1] == len(polls) - 1:
            last = polls[odd[-1]].fault
            return f"polling stopped at the unknown status '{last}' ({len(polls)} GETs)"
    return _answered_ok(scenario, records)


def _poll_pending(scenario: Scenario, records: list[CallRecord]) -> str | None:
    for record in records:
        polls = _polls(record)
        held = [a for a in polls if a.fault]
        if not held:
            return "the operation was never polled while it was pending"
        if held[-1] is polls[-1]:
            return f"polling stopped while the operation was pending ({len(polls)} GETs)"
    return _answered_ok(scenario, records)


def _poll_rate(scenario: Scenario, records: list[CallRecord]) -> str | None:
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


def _stop_at_terminal(scenario: Scenario, records: list[CallRecord]) -> str | None:
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


def _failed_reported(scenario: Scenario, records: list[CallRecord]) -> str | None:
    code = scenario.expect.error_code
    if not code:
        return "the scenario expects no error code: a broken scenario"
    return next(filter(None, (_code_problem(record, code) for record in records)), None)


def _upload(scenario: Scenario, records: list[CallRecord]) -> str | None:
    threshold = _spec.upload_threshold_bytes()
    for record in records:
        body = record.call.body or {}
        size = len(orjson.dumps(body))
        if size <= threshold:
            return f"the kit's body is {size} B, not over {threshold} B: a broken scenario"
        big = [a for a in record.own() if a.body_size > threshold]
        if big:
            return f"the operation was POSTed inline: {big[0].body_size} B over {threshold} B"
        puts = [a for a in record.attempts if a.method == "PUT" and a.body is not None]
        largest = max(body, key=lambda k: len(orjson.dumps(body[k])))
        for put in puts:
            try:
                uploaded = orjson.loads(put.body or b"")
            except orjson.JSONDecodeError:
                continue
            if (
                isinstance(uploaded, dict)
                and uploaded.get(largest) == body[largest]
                and all(uploaded[k] == body.get(k) for k in uploaded if k in body)
            ):
                return None
        return f"no presigned PUT carried the body's `{largest}` ({len(puts)} PUTs)"
    return None


def _download(scenario: Scenario, records: list[CallRecord]) -> str | None:
    download = _spec.route("createPayloadDownloadUrl").operation_id
    for record in records:
        if not record.on(download):
            return "the offloaded result was never asked for (no download-url request)"
        outside = [a for a in record.attempts if a.method == "GET" and a.operation_id is None]
        if not outside:
            return "the presigned download URL was never fetched"
    return _answered_ok(scenario, records)


_RULES = [
    Rule("result-returned", "the caller is handed the operation's result", _answered_ok),
    Rule("error-returned", "the caller is handed the error with its HTTP status", _error_status),
    Rule("no-retry-client-error", "400/401/403/404/422 are never retried", _no_retry),
    Rule("retry-transient", "a dropped, cut or 429/5xx attempt is retried", _retried),
    Rule("same-key-on-retry", "one Idempotency-Key on every attempt of one call", _same_key),
    Rule("fresh-key-per-call", "a new Idempotency-Key for a new call", _fresh_key),
    Rule("caller-key-kept", "a caller's own Idempotency-Key is never replaced", _caller_key),
    Rule("one-operation", "retries of one call create one operation", _one_operation),
    Rule("honour-retry-after", "the retry waits Retry-After (and not much longer)", _retry_after),
    Rule(
        "bounded-backoff",
        f"a retry without Retry-After waits <= {MAX_BACKOFF_S:g} s",
        _bounded_backoff,
    ),
    Rule("slow-answer-awaited", "a slow answer is waited for, not retried", _single_attempt),
    Rule("poll-through-unknown-status", "polling goes on through an unknown status", _poll_unknown),
    Rule("poll-while-pending", "polling goes on while the operation is pending", _poll_pending),
    Rule(
        "poll-rate-bounded",
        f"polls <= {MAX_POLL_GAP_S:g} s apart, <= {MAX_POLLS_PER_S:g}/s",
        _poll_rate,
    ),
    Rule("stop-at-terminal", "no poll after COMPLETED or FAILED", _stop_at_terminal),
    Rule(
        "failed-reported",
        "a FAILED operation is handed back as an error naming its code",
        _failed_reported,
    ),
    Rule("upload-large-body", "a body over the threshold goes through upload-url + PUT", _upload),
    Rule("download-offloaded", "an offloaded result is fetched through download-url", _download),
]
RULES: dict[str, Rule] = {rule.name: rule for rule in _RULES}


def check_rule(name: str, scenario: Scenario, records: list[CallRecord]) -> str | None:
    return RULES[name].check(scenario, records)


def _compare(expected: Any, result: Any) -> str | None:
    if expected is None:
        return "the kit could not read the expected value from the emulator"
    if not isinstance(result, dict):
        return f"not a JSON object: {_short(result)}"
    if isinstance(expected, dict) and "loss" in expected:
        if "loss" not in result and isinstance(result.get("output"), dict):
            result = result["output"]
        loss = result.get("loss")
        if not isinstance(loss, int | float) or abs(loss - expected["loss"]) > 1e-6 * max(
            1.0, abs(expected["loss"])
        ):
            return f"loss {loss!r}, the emulator computed {expected['loss']!r}"
        wanted = expected.get("loss_fn_outputs") or []
        if wanted:
            got = result.get("loss_fn_outputs")
            if not isinstance(got, list) or len(got) != len(wanted):
                count = len(got) if isinstance(got, list) else got
                return f"loss_fn_outputs has {count} entries, the emulator returned {len(wanted)}"
            want_n, want_sum = _numbers(wanted)
            got_n, got_sum = _numbers(got)
            if got_n != want_n or abs(got_sum - want_sum) > 1e-6 * max(1.0, abs(want_sum)):
                return (
                    f"loss_fn_outputs hold {got_n} numbers summing to {got_sum}, "
                    f"expected {want_n} summing to {want_sum}"
                )
        return None
    if isinstance(expected, dict) and "id" in expected and result.get("id") != expected["id"]:
        return f"id {result.get('id')!r}, expected {expected['id']!r}"
    return None


def _numbers(node: Any) -> tuple[int, float]:
    if isinstance(node, bool) or node is None or isinstance(node, str):
        return 0, 0.0
    if isinstance(node, int | float):
        return 1, float(node)
    items = node.values() if isinstance(node, dict) else node
    count, total = 0, 0.0
    for item in items:
        if isinstance(node, dict) and item is node.get("shape"):
            continue
        n, s = _numbers(item)
        count, total = count + n, total + s
    return count, total


def _short(value: Any, limit: int = 300) -> str:
    text = orjson.dumps(value).decode() if value is not None else "nothing"
    return text if len(text) <= limit else text[:limit] + "..."
