"""The checks of what the caller is handed: the result, or the error with its HTTP status and
the FAILED operation's code; and the scenario's own `expect` (:func:`expect_problem`)."""

from __future__ import annotations

from typing import Any

import orjson

from ._types import CallRecord, Scenario

__all__ = ["answered_ok", "error_status", "expect_problem", "failed_reported"]


def answered_ok(scenario: Scenario, records: list[CallRecord]) -> str | None:
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


def error_status(scenario: Scenario, records: list[CallRecord]) -> str | None:
    status = scenario.expect.status
    if status is None:
        return "the scenario expects no status: a broken scenario"
    return next(filter(None, (_status_problem(record, status) for record in records)), None)


def failed_reported(scenario: Scenario, records: list[CallRecord]) -> str | None:
    code = scenario.expect.error_code
    if not code:
        return "the scenario expects no error code: a broken scenario"
    return next(filter(None, (_code_problem(record, code) for record in records)), None)


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
