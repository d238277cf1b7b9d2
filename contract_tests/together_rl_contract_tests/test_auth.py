"""Bearer auth and tenant isolation."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from together_rl_contract_tests._http import TargetClient, expect_status_rule
from together_rl_contract_tests._spec import find_route

READ_ROUTES = [
    "/v1/rl/supported-models",
    "/v1/rl/training-sessions",
]


@pytest.mark.operation("GET /rl/supported-models")
@pytest.mark.parametrize("path", READ_ROUTES)
@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer not-a-real-key-0000", "Basic dXNlcjpwYXNz", "Bearer"],
    ids=["missing", "unknown-key", "basic-scheme", "empty-bearer"],
)
def test_bad_auth_is_401_with_json_error(
    client: TargetClient, path: str, authorization: str | None
) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    response = client.get(path, auth=False, headers=headers)
    operation = find_route("GET", path)
    assert operation is not None, path
    expect_status_rule(response, 401, operation.operation_id)
    assert response.json()["error"]["message"]


@pytest.mark.operation("POST /rl/training-sessions/{session_id}/operations/forward-backward")
def test_bad_auth_on_forward_backward_stores_nothing(
    client: TargetClient, session_id: str, probe_body: dict[str, Any]
) -> None:
    key = str(uuid.uuid4())
    response = client.post(
        f"/v1/rl/training-sessions/{session_id}/operations/forward-backward",
        json=probe_body,
        headers={"Idempotency-Key": key, "Authorization": "Bearer wrong"},
        auth=False,
    )
    expect_status_rule(response, 401, "forwardBackward")
    # The key was not consumed: the real owner can use it with another body.
    other = dict(probe_body, return_loss_fn_outputs=True)
    accepted = client.submit_forward_backward(session_id, other, key)
    assert accepted.status_code == 200, accepted.text


@pytest.mark.operation("GET /rl/training-sessions/{session_id}")
def test_other_tenant_gets_404_for_session(
    client: TargetClient, second_client: TargetClient, session_id: str
) -> None:
    assert client.get(f"/v1/rl/training-sessions/{session_id}").status_code == 200
    response = second_client.get(f"/v1/rl/training-sessions/{session_id}")
    expect_status_rule(response, 404, "getTrainingSession")


@pytest.mark.operation(
    "GET /rl/training-sessions/{session_id}/operations/forward-backward/{operation_id}"
)
def test_other_tenant_gets_404_for_operation(
    client: TargetClient,
    second_client: TargetClient,
    session_id: str,
    probe_body: dict[str, Any],
) -> None:
    operation = client.submit_forward_backward(session_id, probe_body).json()
    response = second_client.get_operation(session_id, operation["id"])
    expect_status_rule(response, 404, "getForwardBackwardOperation")


@pytest.mark.operation("POST /rl/training-sessions/{session_id}/operations/forward-backward")
# The second key's request would be refused anyway, but it is still a POST to a real API.
@pytest.mark.needs_mutations("a training pass sent with the second key")
def test_other_tenant_cannot_submit_to_session(
    second_client: TargetClient, session_id: str, probe_body: dict[str, Any]
) -> None:
    response = second_client.submit_forward_backward(session_id, probe_body)
    expect_status_rule(response, 404, "forwardBackward")


@pytest.mark.operation("GET /rl/model-resources/{model_resources_id}")
def test_other_tenant_gets_404_for_model_resources(
    client: TargetClient, second_client: TargetClient, model_resources: dict[str, Any]
) -> None:
    path = f"/v1/rl/model-resources/{model_resources['id']}"
    assert client.get(path).status_code == 200
    assert second_client.get(path).status_code == 404


@pytest.mark.operation("GET /rl/training-sessions")
def test_other_tenant_does_not_list_sessions(
    client: TargetClient, second_client: TargetClient, session_id: str
) -> None:
    listed: list[str] = []
    after = ""
    for _ in range(100):
        page = second_client.get(f"/v1/rl/training-sessions?limit=100{after}").json()
        listed += [s["id"] for s in page.get("data", [])]
        if not page.get("meta", {}).get("has_more"):
            break
        after = f"&after={page['meta']['next_cursor']}"
    assert session_id not in listed
