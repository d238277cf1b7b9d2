"""Idempotency-Key semantics of forward-backward (the spec's IdempotencyKey parameter)."""

from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from together_rl_contract_tests._http import COMPLETED, TargetClient, expect_status_rule

FB = "POST /rl/training-sessions/{session_id}/operations/forward-backward"
CONCURRENT_DUPLICATES = 8


def _emulator_stats(client: TargetClient) -> dict[str, Any] | None:
    if not client.target.is_emulator:
        return None
    response = client.get("/_emulator/stats")
    return dict(response.json()) if response.status_code == 200 else None


def _created(stats: dict[str, Any] | None) -> int:
    return int((stats or {}).get("operations_created", {}).get("forward-backward", 0))


@pytest.fixture
def key() -> str:
    """A new Idempotency-Key."""
    return str(uuid.uuid4())


@pytest.mark.operation(FB)
def test_replay_returns_the_same_operation(
    client: TargetClient, session_id: str, probe_body: dict[str, Any], key: str
) -> None:
    before = _emulator_stats(client)
    first = client.submit_forward_backward(session_id, probe_body, key)
    assert first.status_code == 200, first.text
    replay = client.submit_forward_backward(session_id, probe_body, key)
    assert replay.status_code == 200, replay.text
    assert replay.json()["id"] == first.json()["id"], "a replayed key created a new operation"
    client.wait_for_operation(session_id, first.json()["id"])
    late = client.submit_forward_backward(session_id, probe_body, key)
    assert late.json()["id"] == first.json()["id"]
    assert late.json()["status"] == COMPLETED, "a replay returns the operation as it is now"
    after = _emulator_stats(client)
    if before is not None and after is not None:
        assert _created(after) - _created(before) == 1


@pytest.mark.operation(FB)
def test_same_key_with_changed_body_is_refused(
    client: TargetClient, session_id: str, probe_body: dict[str, Any], key: str
) -> None:
    first = client.submit_forward_backward(session_id, probe_body, key)
    assert first.status_code == 200, first.text
    changed = dict(probe_body, return_loss_fn_outputs=True)
    response = client.submit_forward_backward(session_id, changed, key)
    expect_status_rule(response, 422, "forwardBackward")
    assert response.headers.get("x-should-retry") == "false"
    assert "error" in response.json()


@pytest.mark.operation(FB)
def test_same_key_in_another_session_is_independent(
    client: TargetClient,
    session_id: str,
    fresh_session: dict[str, Any],
    probe_body: dict[str, Any],
    key: str,
) -> None:
    first = client.submit_forward_backward(session_id, probe_body, key)
    other = client.submit_forward_backward(fresh_session["id"], probe_body, key)
    assert first.status_code == other.status_code == 200, (first.text, other.text)
    assert first.json()["id"] != other.json()["id"], "the key's scope includes the session"


@pytest.mark.operation(FB)
def test_concurrent_duplicates_create_one_operation(
    client: TargetClient, session_id: str, probe_body: dict[str, Any], key: str
) -> None:
    before = _emulator_stats(client)

    def submit(_: int) -> str:
        for _attempt in range(50):
            response = client.submit_forward_backward(session_id, probe_body, key)
            if response.status_code == 409:  # the first request with this key is in flight
                time.sleep(0.05)
                continue
            assert response.status_code == 200, response.text
            return str(response.json()["id"])
        raise AssertionError("still 409 after 50 attempts")

    with ThreadPoolExecutor(CONCURRENT_DUPLICATES) as pool:
        ids = set(pool.map(submit, range(CONCURRENT_DUPLICATES)))
    assert len(ids) == 1, f"concurrent duplicates created {len(ids)} operations"
    after = _emulator_stats(client)
    if before is not None and after is not None:
        assert _created(after) - _created(before) == 1


@pytest.mark.operation(FB)
@pytest.mark.parametrize("header", [None, ""], ids=["missing", "empty"])
def test_missing_or_empty_key_is_400(
    client: TargetClient, session_id: str, probe_body: dict[str, Any], header: str | None
) -> None:
    headers = {} if header is None else {"Idempotency-Key": header}
    response = client.post(
        f"/v1/rl/training-sessions/{session_id}/operations/forward-backward",
        json=probe_body,
        headers=headers,
    )
    assert response.status_code == 400, response.text
    assert "idempotency" in response.text.lower()
