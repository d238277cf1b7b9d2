"""Operations of one session run in submission order."""

from __future__ import annotations

import time
from typing import Any

import pytest

from together_rl_contract_tests._http import COMPLETED, TERMINAL_STATUSES, TargetClient
from together_rl_contract_tests._spec import enum_value

FB = "POST /rl/training-sessions/{session_id}/operations/forward-backward"
QUEUE_LENGTH = 8
FAILED = enum_value("OperationStatus", "FAILED")


@pytest.mark.operation(FB)
def test_operations_complete_in_submission_order(
    client: TargetClient, fresh_session: dict[str, Any], probe_body: dict[str, Any]
) -> None:
    """Whenever operation k is seen terminal, every operation before it is terminal too.

    Each round polls the newest operation first, so an out-of-order worker that finishes k
    before j < k is caught when j is read after k.
    """
    session_id = fresh_session["id"]
    ids = [
        client.submit_forward_backward(session_id, probe_body).json()["id"]
        for _ in range(QUEUE_LENGTH)
    ]
    deadline = time.monotonic() + 60
    while True:
        terminal = {}
        for operation_id in reversed(ids):
            status = client.get_operation(session_id, operation_id).json()["status"]
            terminal[operation_id] = status in TERMINAL_STATUSES
        flags = [terminal[operation_id] for operation_id in ids]
        first_open = flags.index(False) if False in flags else len(flags)
        assert not any(flags[first_open:]), f"completed out of order: {flags}"
        if all(flags):
            break
        assert time.monotonic() < deadline, "operations did not complete"
        time.sleep(0.01)
    statuses = [client.get_operation(session_id, i).json()["status"] for i in ids]
    assert statuses == [COMPLETED] * QUEUE_LENGTH


@pytest.mark.operation("POST /rl/training-sessions/{session_id}/stop")
def test_stop_fails_queued_operations_or_lets_them_finish(
    client: TargetClient, fresh_session: dict[str, Any], probe_body: dict[str, Any]
) -> None:
    """After a stop, every operation is terminal: COMPLETED, or FAILED with SESSION_NOT_ACTIVE,
    and no COMPLETED operation comes after a FAILED one (order again)."""
    session_id = fresh_session["id"]
    ids = [
        client.submit_forward_backward(session_id, probe_body).json()["id"]
        for _ in range(QUEUE_LENGTH)
    ]
    assert client.post(f"/v1/rl/training-sessions/{session_id}/stop").status_code == 200
    operations = [client.wait_for_operation(session_id, i) for i in ids]
    statuses = [op["status"] for op in operations]
    for op in operations:
        if op["status"] == FAILED:
            assert op["error"]["code"] == enum_value("OperationErrorCode", "SESSION_NOT_ACTIVE"), op
    if FAILED in statuses:
        first_failed = statuses.index(FAILED)
        assert COMPLETED not in statuses[first_failed:], statuses
