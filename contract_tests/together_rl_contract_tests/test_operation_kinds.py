"""The operation kinds besides forward-backward
(optim-step, sample, weights-sync, custom forward-backward):
idempotency per kind, lifecycle and output shape, scope of ids and keys, validation."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from together_rl_contract_tests import _training as t
from together_rl_contract_tests._http import (
    COMPLETED,
    CUSTOM_FORWARD_BACKWARD,
    OPTIM_STEP,
    SAMPLE,
    WEIGHTS_SYNC,
    TargetClient,
    expect_status_rule,
    operation_path,
)
from together_rl_contract_tests._spec import OPERATION_KINDS as SPEC_OPERATION_KINDS

KINDS = (OPTIM_STEP, SAMPLE, WEIGHTS_SYNC, CUSTOM_FORWARD_BACKWARD)
BODIES: dict[str, dict[str, Any]] = {
    OPTIM_STEP: t.ADAM_STEP,
    SAMPLE: t.sample_body([t.PROMPT], seed=3, max_tokens=6, num_samples=2),
    WEIGHTS_SYNC: {"weight_sync_type": "WEIGHT_SYNC_TYPE_SYNCHRONOUS"},
    CUSTOM_FORWARD_BACKWARD: t.custom_body(t.SEQUENCE_X, [-1.0] * (len(t.SEQUENCE_X) - 1)),
}
CHANGED_BODIES: dict[str, dict[str, Any]] = {
    OPTIM_STEP: {"adam_params": {"learning_rate": 0.02}},
    SAMPLE: t.sample_body([t.PROMPT], seed=4, max_tokens=6, num_samples=2),
    WEIGHTS_SYNC: {"weight_sync_type": "WEIGHT_SYNC_TYPE_PIPELINE"},
    CUSTOM_FORWARD_BACKWARD: t.custom_body(t.SEQUENCE_X, [-2.0] * (len(t.SEQUENCE_X) - 1)),
}


def label(kind: str, get: bool = False) -> str:
    path = operation_path("{session_id}", kind).removeprefix("/v1")
    return f"GET {path}/{{operation_id}}" if get else f"POST {path}"


def by_kind(get: bool = False) -> list[Any]:
    return [pytest.param(k, id=k, marks=pytest.mark.operation(label(k, get))) for k in KINDS]


def _counter(client: TargetClient, name: str, kind: str) -> int | None:
    if not client.target.is_emulator:
        return None
    stats = client.get("/_emulator/stats").json()
    return int(stats.get(name, {}).get(kind, 0))


@pytest.mark.parametrize("kind", by_kind())
def test_replay_returns_the_same_operation(
    client: TargetClient, own_session_id: str, kind: str
) -> None:
    key = str(uuid.uuid4())
    created_before = _counter(client, "operations_created", kind)
    first = client.submit_operation(own_session_id, kind, BODIES[kind], key)
    assert first.status_code == 200, first.text
    replay = client.submit_operation(own_session_id, kind, BODIES[kind], key)
    assert replay.status_code == 200, replay.text
    assert replay.json()["id"] == first.json()["id"], f"a replayed {kind} key created a new one"
    done = client.wait_for_operation(own_session_id, first.json()["id"], kind=kind)
    late = client.submit_operation(own_session_id, kind, BODIES[kind], key)
    assert late.json() == done, "a replay returns the operation as it is now"
    created_after = _counter(client, "operations_created", kind)
    if created_before is not None and created_after is not None:
        assert created_after - created_before == 1


@pytest.mark.parametrize("kind", by_kind())
def test_same_key_with_changed_body_is_422(
    client: TargetClient, own_session_id: str, kind: str
) -> None:
    key = str(uuid.uuid4())
    first = client.submit_operation(own_session_id, kind, BODIES[kind], key)
    assert first.status_code == 200, first.text
    response = client.submit_operation(own_session_id, kind, CHANGED_BODIES[kind], key)
    expect_status_rule(response, 422, SPEC_OPERATION_KINDS[kind][0])
    assert response.headers.get("x-should-retry") == "false"
    assert response.json()["error"]["message"]


@pytest.mark.operation(label(OPTIM_STEP))
def test_same_key_on_two_kinds_makes_two_operations(
    client: TargetClient, own_session_id: str
) -> None:
    """The key's scope includes the operation kind."""
    key = str(uuid.uuid4())
    step = client.submit_operation(own_session_id, OPTIM_STEP, BODIES[OPTIM_STEP], key)
    sync = client.submit_operation(own_session_id, WEIGHTS_SYNC, BODIES[WEIGHTS_SYNC], key)
    assert step.status_code == sync.status_code == 200, (step.text, sync.text)
    assert step.json()["id"] != sync.json()["id"]


@pytest.mark.parametrize("kind", by_kind())
def test_missing_idempotency_key_is_400(
    client: TargetClient, own_session_id: str, kind: str
) -> None:
    response = client.post(operation_path(own_session_id, kind), json=BODIES[kind])
    assert response.status_code == 400, response.text
    assert "idempotency" in response.text.lower()


@pytest.mark.parametrize("kind", by_kind(get=True))
def test_operation_completes_with_its_output(
    client: TargetClient, own_session_id: str, kind: str
) -> None:
    operation = client.run_operation(own_session_id, kind, BODIES[kind])
    assert operation["status"] == COMPLETED, operation
    output = operation["output"]
    if kind == OPTIM_STEP:
        assert int(output["step"]) >= 1, output
    elif kind == WEIGHTS_SYNC:
        assert int(output["weights_version"]) >= 1, output
    elif kind == SAMPLE:
        body = BODIES[SAMPLE]
        results = t.sequences_of(output)
        assert len(results) == len(body["model_inputs"]), output
        for result, raw in zip(results, output["results"], strict=True):
            assert len(result) == body["num_samples"], raw
            assert raw["policy_segments"], raw
            for seq in result:
                assert 1 <= len(seq["tokens"]) <= body["sampling_params"]["max_tokens"], seq
                assert len(seq["logprobs"]) == len(seq["tokens"]), seq
                assert all(lp <= 0 for lp in seq["logprobs"]), seq
                assert seq["stop_reason"] in ("STOP_REASON_LENGTH", "STOP_REASON_STOP"), seq
    else:
        assert output == {} or isinstance(output, dict), output
    assert client.get_operation(own_session_id, operation["id"], kind).json() == operation


@pytest.mark.operation(label(OPTIM_STEP, get=True))
def test_step_and_version_are_reflected_in_the_session(
    client: TargetClient, fresh_session: dict[str, Any]
) -> None:
    session_id = fresh_session["id"]
    steps = t.submit_all(
        client, session_id, [(OPTIM_STEP, BODIES[OPTIM_STEP]), (WEIGHTS_SYNC, BODIES[WEIGHTS_SYNC])]
    )
    session = client.get(f"/v1/rl/training-sessions/{session_id}").json()
    step, version = int(steps[0]["output"]["step"]), int(steps[1]["output"]["weights_version"])
    assert step == 1 and version >= 1, steps
    state = session["policy_state"]
    assert int(state["trainer_step"]) == step, session
    assert int(state["applied_weights_version"]) == version, session
    assert int(state["target_weights_version"]) == version, session
    assert state["pending_publish"] is False, session


@pytest.mark.operation(label(SAMPLE, get=True))
def test_operation_is_not_visible_under_another_kind(
    client: TargetClient, own_session_id: str
) -> None:
    submitted = client.submit_operation(own_session_id, OPTIM_STEP, BODIES[OPTIM_STEP])
    assert submitted.status_code == 200, submitted.text
    operation_id = submitted.json()["id"]
    for kind in (SAMPLE, WEIGHTS_SYNC, CUSTOM_FORWARD_BACKWARD, "forward-backward"):
        response = client.get_operation(own_session_id, operation_id, kind)
        assert response.status_code == 404, f"{kind}: {response.text}"


INVALID = [
    (CUSTOM_FORWARD_BACKWARD, t.custom_body(t.SEQUENCE_X, [-1.0] * 3), "gradients[0]"),
    (
        CUSTOM_FORWARD_BACKWARD,
        {**t.custom_body(t.SEQUENCE_X, [-1.0] * 7), "gradients": []},
        "gradients",
    ),
    (WEIGHTS_SYNC, {"weight_sync_type": "WEIGHT_SYNC_TYPE_NOPE"}, "weight_sync_type"),
    (WEIGHTS_SYNC, {}, "weight_sync_type"),
    (OPTIM_STEP, {"adam_params": {"learning_rate": -1.0}}, "adam_params.learning_rate"),
    (OPTIM_STEP, {"adam_params": {"beta1": 1.0}}, "adam_params.beta1"),
    (SAMPLE, {"model_inputs": []}, "model_inputs"),
    (SAMPLE, {**BODIES[SAMPLE], "num_samples": 0}, "num_samples"),
    (
        SAMPLE,
        {**BODIES[SAMPLE], "sampling_params": {"max_tokens": 0}},
        "sampling_params.max_tokens",
    ),
]


@pytest.mark.parametrize(
    ("kind", "body", "param"),
    [
        pytest.param(k, b, p, id=f"{k}-{p}", marks=pytest.mark.operation(label(k)))
        for k, b, p in INVALID
    ],
)
def test_invalid_body_is_400_naming_the_field(
    client: TargetClient, own_session_id: str, kind: str, body: dict[str, Any], param: str
) -> None:
    response = client.submit_operation(own_session_id, kind, body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["message"]
    named = error.get("param") or ""
    assert named == param or named.startswith((f"{param}.", f"{param}[")), error


@pytest.mark.operation(label(OPTIM_STEP))
@pytest.mark.emulator_only("muon_params on AdamW resources: the emulator's own 400")
def test_muon_params_on_adamw_resources_are_refused(
    client: TargetClient, own_session_id: str
) -> None:
    response = client.submit_operation(own_session_id, OPTIM_STEP, {"muon_params": {}})
    assert response.status_code == 400, response.text
    assert response.json()["error"]["param"] == "muon_params"
