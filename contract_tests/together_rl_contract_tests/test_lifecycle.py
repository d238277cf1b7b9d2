"""The operation lifecycle and polling, sessions and their stop."""

from __future__ import annotations

from typing import Any

import pytest

from together_rl_contract_tests._http import COMPLETED, TERMINAL_STATUSES, TargetClient
from together_rl_contract_tests._spec import enum_value

FB = "POST /rl/training-sessions/{session_id}/operations/forward-backward"
GET_OP = "GET /rl/training-sessions/{session_id}/operations/forward-backward/{operation_id}"
#: What a live operation may report (the proto zero value excepted).
KNOWN_STATUSES = {
    enum_value("OperationStatus", "PENDING"),
    enum_value("OperationStatus", "RUNNING"),
    *TERMINAL_STATUSES,
}


@pytest.mark.operation(FB)
def test_submit_returns_operation_with_id_and_status(
    client: TargetClient, session_id: str, probe_body: dict[str, Any]
) -> None:
    response = client.submit_forward_backward(session_id, probe_body)
    assert response.status_code == 200, response.text
    operation = response.json()
    assert isinstance(operation.get("id"), str) and operation["id"], operation
    assert operation.get("status") in KNOWN_STATUSES, operation


@pytest.mark.operation(GET_OP)
def test_polling_reaches_completed_with_output(
    client: TargetClient, session_id: str, probe_body: dict[str, Any]
) -> None:
    submitted = client.submit_forward_backward(session_id, probe_body).json()
    operation = client.wait_for_operation(session_id, submitted["id"])
    assert operation["id"] == submitted["id"]
    assert operation["status"] == COMPLETED, operation
    assert isinstance(operation["output"]["loss"], float | int), operation
    assert "error" not in operation or operation["error"] in (None, {}), operation
    # A completed operation stays completed, with the same result.
    again = client.get_operation(session_id, submitted["id"]).json()
    assert again == operation


@pytest.mark.operation(GET_OP)
def test_loss_fn_outputs_only_when_requested(
    client: TargetClient, session_id: str, probe_body: dict[str, Any]
) -> None:
    without = client.run_forward_backward(session_id, probe_body)
    assert without["output"].get("loss_fn_outputs") in (None, []), without
    probe_body["return_loss_fn_outputs"] = True
    with_outputs = client.run_forward_backward(session_id, probe_body)
    outputs = with_outputs["output"]["loss_fn_outputs"]
    assert len(outputs) == len(probe_body["samples"])
    logprobs = outputs[0]["tensors"]["logprobs"]
    assert logprobs["dtype"] == "float32"
    assert len(logprobs["data"]) == 3
    assert logprobs["data"][0] == 0.0, "a zero-weight position must report exactly 0.0"
    assert all(value < 0 for value in logprobs["data"][1:]), logprobs


@pytest.mark.operation(GET_OP)
def test_unknown_operation_is_404(client: TargetClient, session_id: str) -> None:
    response = client.get_operation(session_id, "no-such-operation")
    assert response.status_code == 404, response.text
    assert "error" in response.json()


@pytest.mark.operation(FB)
@pytest.mark.needs_mutations("forward-backward goes only to --session-id on a non-emulator target")
def test_unknown_session_is_404(client: TargetClient, probe_body: dict[str, Any]) -> None:
    response = client.submit_forward_backward("no-such-session", probe_body)
    assert response.status_code == 404, response.text


@pytest.mark.operation(GET_OP)
def test_operation_is_not_visible_under_another_session(
    client: TargetClient, session_id: str, fresh_session: dict[str, Any], probe_body: dict[str, Any]
) -> None:
    operation = client.submit_forward_backward(session_id, probe_body).json()
    response = client.get_operation(fresh_session["id"], operation["id"])
    assert response.status_code == 404, response.text


@pytest.mark.operation("POST /rl/training-sessions/{session_id}/stop")
def test_stopped_session_refuses_new_operations(
    client: TargetClient, fresh_session: dict[str, Any], probe_body: dict[str, Any]
) -> None:
    session_id = fresh_session["id"]
    assert fresh_session["status"] == enum_value("SessionStatus", "RUNNING"), fresh_session
    stopped = client.post(f"/v1/rl/training-sessions/{session_id}/stop")
    assert stopped.status_code == 200, stopped.text
    assert stopped.json()["status"] in (
        enum_value("SessionStatus", "STOPPED"),
        enum_value("SessionStatus", "STOPPING"),
    )
    again = client.post(f"/v1/rl/training-sessions/{session_id}/stop")
    assert again.status_code == 200, "stopping a stopped session returns it unchanged"
    refused = client.submit_forward_backward(session_id, probe_body)
    assert 400 <= refused.status_code < 500, refused.text
    assert "error" in refused.json()


@pytest.mark.operation("GET /rl/training-sessions")
def test_list_sessions_paginates_with_cursor(
    client: TargetClient, model_resources: dict[str, Any]
) -> None:
    created = {client.start_session(model_resources["id"])["id"] for _ in range(3)}
    seen: list[str] = []
    after: str | None = None
    for _ in range(1000):
        query = "?limit=2" + (f"&after={after}" if after else "")
        page = client.get(f"/v1/rl/training-sessions{query}")
        assert page.status_code == 200, page.text
        body = page.json()
        assert len(body["data"]) <= 2
        seen += [session["id"] for session in body["data"]]
        if not body["meta"]["has_more"]:
            break
        after = body["meta"]["next_cursor"]
    assert len(seen) == len(set(seen)), "a session appeared on two pages"
    assert created <= set(seen)
