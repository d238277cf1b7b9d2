"""Pure policy tests: retry classification, backoff, Retry-After, reading operation answers
(the polling schedule: test_polling_schedule.py, test_polling_guarantee.py)."""

from __future__ import annotations

import email.utils
from typing import Any

import pytest
from together_rl import MalformedResponseError
from together_rl._http import (
    RetryPolicy,
    RetryState,
    backoff_delay,
    parse_retry_after,
    should_retry_status,
)
from together_rl._results import (
    CUSTOM_FORWARD_BACKWARD,
    FORWARD_BACKWARD,
    OPTIM_STEP,
    SAMPLE,
    WEIGHTS_SYNC,
    interpret_operation,
)


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504, 520, 599])
def test_retryable_statuses(status: int) -> None:
    assert should_retry_status(status, {})


@pytest.mark.parametrize("status", [400, 401, 403, 404, 405, 413, 422])
def test_never_retried(status: int) -> None:
    assert not should_retry_status(status, {})


def test_x_should_retry_overrides_both_ways() -> None:
    assert not should_retry_status(409, {"x-should-retry": "false"})
    assert should_retry_status(400, {"x-should-retry": "true"})


def test_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after": "0.5"}) == 0.5
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({"retry-after": "-1"}) is None
    assert parse_retry_after({}) is None
    date = email.utils.formatdate(1_000_030.0, usegmt=True)
    assert parse_retry_after({"retry-after": date}, wall_clock=lambda: 1_000_000.0) == 30.0
    past = email.utils.formatdate(999_000.0, usegmt=True)
    assert parse_retry_after({"retry-after": past}, wall_clock=lambda: 1_000_000.0) == 0.0


def test_backoff_grows_bounded_with_jitter() -> None:
    policy = RetryPolicy(initial_backoff=0.5, max_backoff=4.0, jitter=0.25)
    assert backoff_delay(policy, 0, 0.0) == 0.5
    assert backoff_delay(policy, 2, 0.0) == 2.0
    assert backoff_delay(policy, 10, 0.0) == 4.0
    assert backoff_delay(policy, 10, 0.999) == pytest.approx(4.0 * (1 - 0.25 * 0.999))


def test_retry_state_uses_capped_retry_after_and_stops() -> None:
    now = [0.0]
    state = RetryState(
        RetryPolicy(max_retries=2, max_retry_after=10.0, call_timeout=None),
        clock=lambda: now[0],
        rand=lambda: 0.0,
    )
    assert state.after_status(429, {"retry-after": "120"}) == 10.0
    assert state.after_status(503, {}) == pytest.approx(0.5)  # backoff after one retry
    assert state.after_status(503, {}) is None  # max_retries reached
    assert state.after_status(400, {}) is None


def test_retry_state_respects_call_deadline() -> None:
    now = [0.0]
    state = RetryState(RetryPolicy(call_timeout=5.0), clock=lambda: now[0], rand=lambda: 0.0)
    assert state.after_status(429, {"retry-after": "2"}) == 2.0
    now[0] = 4.0
    assert state.after_status(429, {"retry-after": "2"}) is None
    assert state.attempt_timeout() == pytest.approx(1.0)


@pytest.mark.parametrize("kind", [OPTIM_STEP, SAMPLE, WEIGHTS_SYNC, FORWARD_BACKWARD])
def test_completed_without_output_fails_except_for_custom_forward_backward(kind: Any) -> None:
    body = {"id": "op-1", "status": "TRAINING_OPERATION_STATUS_COMPLETED"}
    state = interpret_operation(body, kind)
    assert isinstance(state.failure, MalformedResponseError)
    assert "op-1" in str(state.failure)
    assert interpret_operation(body, CUSTOM_FORWARD_BACKWARD).failure is None


def test_a_broken_connection_is_retried_at_once_then_with_backoff() -> None:
    """The first retry after a connection error waits `reconnect_delay` (20 ms), the later
    ones the exponential backoff (no jitter here)."""
    state = RetryState(RetryPolicy(), clock=lambda: 0.0, rand=lambda: 0.0)
    assert [state.after_transport_error() for _ in range(3)] == [0.02, 0.5, 1.0]
    status = RetryState(RetryPolicy(), clock=lambda: 0.0, rand=lambda: 0.0)
    assert status.after_status(503, {}) == 0.25  # an overloaded server: the backoff at once
