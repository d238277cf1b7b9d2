"""Model resources: list, stop (409 naming running sessions; force), extend-expiry, the price
estimate, the session cap, expiry, and PATCH of sessions."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest

from together_rl_contract_tests._http import (
    FORWARD_BACKWARD,
    TargetClient,
    expect_status_rule,
    operation_path,
)
from together_rl_contract_tests._provision import PROBE_BODY, base_model
from together_rl_contract_tests._spec import schema

RESOURCES = "/v1/rl/model-resources"
STOP = "POST /rl/model-resources/{model_resources_id}/stop"
EXTEND = "POST /rl/model-resources/{model_resources_id}/extend-expiry"
ESTIMATE = "POST /rl/model-resources/estimate-cost"
LIST = "GET /rl/model-resources"
PATCH = "PATCH /rl/training-sessions/{session_id}"
START = "POST /rl/training-sessions"
READY = "MODEL_RESOURCES_STATUS_READY"
STOPPED = "MODEL_RESOURCES_STATUS_STOPPED"
NOT_ACTIVE = "TRAINING_OPERATION_ERROR_CODE_SESSION_NOT_ACTIVE"
#: The smallest `seconds` of extend-expiry and `inactive_timeout` of a create the spec allows.
MIN_EXTEND_S = int(schema("ModelResourcesExtendExpiry")["properties"]["seconds"]["minimum"])
MIN_INACTIVE_S = int(schema("ModelResourcesCreate")["properties"]["inactive_timeout"]["minimum"])


def _query(path: str, params: dict[str, Any]) -> str:
    return f"{path}?{urlencode(params)}"


@pytest.mark.operation(ESTIMATE)
def test_estimate_cost_creates_nothing(client: TargetClient) -> None:
    model = base_model(client)
    before = client.get(_query(RESOURCES, {"limit": 100})).json()["data"]
    response = client.post(f"{RESOURCES}/estimate-cost", json={"base_model": model})
    assert response.status_code == 200, response.text
    estimate = response.json()
    assert isinstance(estimate["currency"], str) and len(estimate["currency"]) == 3
    assert estimate["price_per_hour"] >= 0
    assert client.get(_query(RESOURCES, {"limit": 100})).json()["data"] == before


@pytest.mark.operation(LIST)
def test_list_pages_and_filters(client: TargetClient, model_resources: dict[str, Any]) -> None:
    page = client.get(_query(RESOURCES, {"limit": 1})).json()
    assert len(page["data"]) == 1 and page["meta"]["limit"] == 1
    ready = client.get(_query(RESOURCES, {"status": READY, "limit": 100})).json()["data"]
    assert model_resources["id"] in [r["id"] for r in ready]
    assert all(r["status"] == READY for r in ready)
    mine = client.get(_query(RESOURCES, {"created_by": "me", "limit": 100})).json()["data"]
    assert model_resources["id"] in [r["id"] for r in mine]


@pytest.mark.operation(STOP)
@pytest.mark.needs_mutations("creates and stops model resources")
def test_stop_names_running_sessions_and_force_stops_them(client: TargetClient) -> None:
    resources = client.create_model_resources(base_model(client))
    session = client.start_session(resources["id"])["id"]
    queued = [client.submit_forward_backward(session, PROBE_BODY).json()["id"] for _ in range(3)]
    refused = client.post(f"{RESOURCES}/{resources['id']}/stop")
    expect_status_rule(refused, 409, "stopModelResources")
    assert session in refused.json()["error"]["message"]
    stopped = client.post(_query(f"{RESOURCES}/{resources['id']}/stop", {"force": "true"}))
    assert stopped.status_code == 200, stopped.text
    assert stopped.json()["status"] in (STOPPED, "MODEL_RESOURCES_STATUS_STOPPING")
    for operation_id in queued:
        operation = client.wait_for_operation(session, operation_id, kind=FORWARD_BACKWARD)
        if "error" in operation:  # finished before the stop, or failed by it
            assert operation["error"]["code"] == NOT_ACTIVE, operation
    late = client.post(
        operation_path(session, FORWARD_BACKWARD), json=PROBE_BODY,
        headers={"Idempotency-Key": "after-stop"},
    )  # fmt: skip
    assert late.status_code == 400, late.text
    extend = client.post(f"{RESOURCES}/{resources['id']}/extend-expiry", json={"seconds": 60})
    assert extend.status_code == 400, extend.text


@pytest.mark.operation(EXTEND)
def test_extend_expiry_moves_expires_at_later(
    client: TargetClient, model_resources: dict[str, Any]
) -> None:
    path = f"{RESOURCES}/{model_resources['id']}/extend-expiry"
    first = client.post(path, json={"seconds": 600})
    assert first.status_code == 200, first.text
    later = client.post(path, json={"seconds": 7200}).json()
    assert later["expires_at"] > first.json()["expires_at"]
    smaller = client.post(path, json={"seconds": MIN_EXTEND_S})
    assert smaller.status_code == 200, smaller.text
    assert smaller.json()["expires_at"] == later["expires_at"]


@pytest.mark.operation(START)
@pytest.mark.emulator_only("the live API documents 5 by default, fewer for some models")
def test_a_session_beyond_the_cap_is_429(client: TargetClient) -> None:
    resources = client.create_model_resources(base_model(client))  # LoRA: 5 at once
    sessions = [client.start_session(resources["id"])["id"] for _ in range(5)]
    no_retry = TargetClient(client.target, retries=0)
    with no_retry:
        refused = no_retry.post(
            "/v1/rl/training-sessions", json={"model_resources_id": resources["id"]}
        )
    assert refused.status_code == 429, refused.text
    assert sessions[0] in refused.json()["error"]["message"]
    client.post(f"/v1/rl/training-sessions/{sessions[0]}/stop")
    assert client.start_session(resources["id"])["status"] == "TRAINING_SESSION_STATUS_RUNNING"
    client.post(_query(f"{RESOURCES}/{resources['id']}/stop", {"force": "true"}))


@pytest.mark.operation(STOP)
@pytest.mark.emulator_only("moves the emulator's clock (POST /_emulator/clock)")
def test_idle_resources_stop_and_their_sessions_expire(client: TargetClient) -> None:
    created = client.post(
        RESOURCES, json={"base_model": base_model(client), "inactive_timeout": MIN_INACTIVE_S}
    )
    assert created.status_code == 200, created.text
    resources = created.json()
    session = client.start_session(resources["id"])["id"]
    advance = {"advance_seconds": MIN_INACTIVE_S + 1}
    assert client.post("/_emulator/clock", json=advance).status_code == 200
    assert client.get(f"{RESOURCES}/{resources['id']}").json()["status"] == STOPPED
    status = client.get(f"/v1/rl/training-sessions/{session}").json()["status"]
    assert status == "TRAINING_SESSION_STATUS_EXPIRED"


@pytest.mark.operation(PATCH)
def test_patch_sets_and_clears_display_name_and_metadata(
    client: TargetClient, fresh_session: dict[str, Any]
) -> None:
    path = f"/v1/rl/training-sessions/{fresh_session['id']}"
    named = client.request(
        "PATCH", path, json={"display_name": "run", "metadata": {"wandb": {"project": "p"}}}
    )
    assert named.status_code == 200, named.text
    assert named.json()["display_name"] == "run"
    assert named.json()["metadata"]["wandb"]["project"] == "p"
    cleared = client.request("PATCH", path, json={"display_name": ""}).json()
    assert not cleared.get("display_name") and cleared["metadata"]["wandb"]["project"] == "p"
    assert client.get(path).json().get("display_name") == cleared.get("display_name")
