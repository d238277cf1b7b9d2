"""The rollout estimate (``POST /rl/rollouts/estimate``): it creates nothing, refuses a body that
breaks the spec's cross-field rule (``x-at-least``, read from the spec here) naming the field,
and, where the answer's names are this project's, follows the reference's billing and price rules
and the emulator's cost model. Every bound is checked by the invalid examples
(``test_validation.py``, ``rollouts_estimate.*``)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest

from together_rl_contract_tests._http import TargetClient
from together_rl_contract_tests._provision import base_model
from together_rl_contract_tests._spec import schema, wire_path

ESTIMATE = "POST /rl/rollouts/estimate"
REQUEST = schema("RolloutEstimateRequest")
#: The cross-field rules of the body: property -> the property it is at least.
AT_LEAST: dict[str, str] = dict(REQUEST.get("x-at-least") or {})
WORKLOAD: dict[str, Any] = {
    "episodes": 1_000,
    "concurrency": 64,
    "prompt_tokens": 512,
    "turns": 3,
    "generated_tokens_per_turn": 256,
    "added_tokens_per_turn": 384,
}
NAMES_ARE_OURS = "the answer's field names are this project's (x-source: emulator)"


def _estimate(client: TargetClient, **change: Any) -> Any:
    body = {"base_model": base_model(client), **WORKLOAD, **change}
    return client.post(wire_path("estimateRollouts"), json=body)


def _answer(client: TargetClient, **change: Any) -> dict[str, Any]:
    response = _estimate(client, **change)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def test_the_spec_states_the_cross_field_rule() -> None:
    assert AT_LEAST == {"added_tokens_per_turn": "generated_tokens_per_turn"}
    assert set(WORKLOAD) | {"base_model"} == set(REQUEST["required"])


@pytest.mark.operation(ESTIMATE)
def test_the_estimate_creates_nothing(client: TargetClient) -> None:
    resources = f"{wire_path('listModelResources')}?{urlencode({'limit': 100})}"
    before = client.get(resources).json()["data"]
    assert _estimate(client).status_code == 200
    assert client.get(resources).json()["data"] == before


@pytest.mark.operation(ESTIMATE)
@pytest.mark.parametrize(("name", "other"), sorted(AT_LEAST.items()))
def test_a_body_below_its_cross_field_bound_is_refused_naming_the_field(
    client: TargetClient, name: str, other: str
) -> None:
    bound = WORKLOAD[other]
    refused = _estimate(client, **{name: bound - 1})
    assert refused.status_code == 400, refused.text
    error = refused.json()["error"]
    assert error["param"] == name, error
    assert error["message"]
    assert _estimate(client, **{name: bound}).status_code == 200  # the bound itself is fine


@pytest.mark.operation(ESTIMATE)
@pytest.mark.emulator_only(NAMES_ARE_OURS)
def test_billed_gpu_hours_and_price_follow_the_reference(client: TargetClient) -> None:
    answer = _answer(client)
    assert answer["billed_gpu_hours"] > answer["generator_gpu_hours"] > 0  # a trainer too
    price = answer["billed_gpu_hours"] * answer["price_per_gpu_hour"]
    assert answer["price"] == pytest.approx(price)
    alone = _answer(client, sampling_only=True)
    assert alone["billed_gpu_hours"] == pytest.approx(alone["generator_gpu_hours"])


@pytest.mark.operation(ESTIMATE)
@pytest.mark.emulator_only(NAMES_ARE_OURS)
def test_time_grows_with_the_work_and_falls_with_concurrency(client: TargetClient) -> None:
    base = _answer(client)["rollout_seconds"]
    for change in (
        {"episodes": 2_000},
        {"prompt_tokens": 4_096},
        {"turns": 6},
        {"added_tokens_per_turn": 1_024},
        {"generated_tokens_per_turn": 384},
    ):
        assert _answer(client, **change)["rollout_seconds"] > base, change
    assert _answer(client, concurrency=8)["rollout_seconds"] > base
    assert _answer(client)["rollout_seconds"] == base  # the same body, the same answer
