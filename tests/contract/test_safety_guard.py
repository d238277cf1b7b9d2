"""The safety guard: against a non-emulator target without --allow-mutations nothing that
mutates or bills leaves the process, and the fuzzer does not touch those operations."""

from __future__ import annotations

import pytest
from together_rl_contract_tests import Target
from together_rl_contract_tests._http import SafetyViolation, TargetClient
from together_rl_contract_tests._provision import PROBE_BODY, Provisioned
from together_rl_contract_tests._schemathesis_plan import (
    operation_plan,
    skipped_operations,
    spec_operations,
)

# Nothing listens here: a request that passes the guard fails to connect instead (a different
# error), so each refusal below is the guard's.
EXTERNAL = Target(base_url="http://127.0.0.1:9", api_key="k", session_id="sess-1")
SESSION = "/v1/rl/training-sessions/sess-1"


@pytest.mark.parametrize(
    ("method", "path", "reason"),
    [
        ("POST", f"{SESSION}/operations/optim-step", "optim-step"),
        ("POST", f"{SESSION}/operations/weights-sync", "weights-sync"),
        ("POST", f"{SESSION}/operations/custom-forward-backward", "custom-forward-backward"),
        ("POST", f"{SESSION}/operations/sample", "billed inference"),
        ("POST", f"{SESSION}/payloads/upload-url", "large-payload"),
        ("POST", f"{SESSION}/payloads/p-1/download-url", "large-payload"),
        ("PUT", "http://127.0.0.1:9/_emulator/payloads/p-1?token=t", "large-payload"),
        ("POST", "/v1/rl/training-sessions", "create"),
        ("POST", f"{SESSION}/stop", "create, stop"),
    ],
)
def test_guard_refuses_mutations_and_billable_requests(method: str, path: str, reason: str) -> None:
    with TargetClient(EXTERNAL) as client, pytest.raises(SafetyViolation, match=reason):
        client.request(method, path, json={})


def test_guard_refuses_training_forward_backward() -> None:
    with TargetClient(EXTERNAL) as client:
        with pytest.raises(SafetyViolation, match="forward_only"):
            client.submit_forward_backward("sess-1", dict(PROBE_BODY, forward_only=False))
        with pytest.raises(SafetyViolation, match="--session-id"):
            client.submit_forward_backward("other", PROBE_BODY)


@pytest.mark.parametrize(
    "path", ["/v1/rl/model-resources/estimate-cost", "/v1/rl/rollouts/estimate"]
)
def test_the_estimates_pass_the_guard(path: str) -> None:
    """They create, change and bill nothing: sent even to a read-only target."""
    with TargetClient(EXTERNAL, retries=0) as client, pytest.raises(Exception) as raised:
        client.request("POST", path, json={})
    assert not isinstance(raised.value, SafetyViolation)


def test_allow_mutations_lifts_the_guard() -> None:
    allowed = Target(base_url="http://127.0.0.1:9", api_key="k", allow_mutations=True)
    with TargetClient(allowed, retries=0) as client, pytest.raises(Exception) as raised:
        client.request("POST", f"{SESSION}/operations/sample", json={})
    assert not isinstance(raised.value, SafetyViolation)


def test_fuzzer_plan_on_a_read_only_target_has_a_row_for_every_operation() -> None:
    provisioned = Provisioned("mr-1", "sess-1", None, "op-1", "m", {"forward-backward": "op-1"})
    plan = operation_plan(EXTERNAL, provisioned)
    assert set(plan) == set(spec_operations())
    fuzzed = {operation_id for operation_id, reason in plan.items() if reason is None}
    assert fuzzed == {
        "getModelResources",
        "getSupportedModels",
        "listTrainingSessions",
        "getTrainingSession",
        "forwardBackward",
        "getForwardBackwardOperation",
        "listModelResources",
        "estimateModelResourcesCost",
        "estimateRollouts",
        "listCheckpoints",
    }
    for operation_id in (
        "optimStep", "sample", "weightsSync", "customForwardBackward", "createTrainingCheckpoint",
        "createInferenceCheckpoint", "stopModelResources", "extendModelResourcesExpiry",
        "updateTrainingSession",
    ):  # fmt: skip
        assert "--allow-mutations" in str(plan[operation_id])
    assert "nothing to pin" in str(plan["getSampleOperation"])
    rows = skipped_operations(EXTERNAL, provisioned)
    assert len(rows) == len(spec_operations()) - len(fuzzed)
    assert all(row.status == "skipped" and row.detail for row in rows)
