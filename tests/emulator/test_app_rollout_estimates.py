"""`POST /v1/rl/rollouts/estimate` in the emulator: every bound of the spec refused naming its
field (the bounds read from the spec, so a bound added there is tested here), the cross-field
rule, unsupported models and GPU types, and the answer the GPU model gives."""

from __future__ import annotations

import dataclasses
from typing import Any

import httpx
import pytest
import yaml
from _emulator_bodies import assert_schema
from emulator_harness import emulator_test_client
from together_rl_emulator import create_app
from together_rl_emulator.base._spec import spec_bytes, spec_defaults
from together_rl_emulator.cost._gpu_model import RolloutWorkload, estimate_rollout

ESTIMATE = "/v1/rl/rollouts/estimate"
BODY: dict[str, Any] = {
    "base_model": "Qwen/Qwen3-8B",
    "episodes": 1_000,
    "concurrency": 64,
    "prompt_tokens": 512,
    "turns": 3,
    "generated_tokens_per_turn": 256,
    "added_tokens_per_turn": 384,
}
_SPEC = yaml.safe_load(spec_bytes())
REQUEST = _SPEC["components"]["schemas"]["RolloutEstimateRequest"]
DEFAULTS = spec_defaults("RolloutEstimateRequest")


def _beyond(prop: dict[str, Any]) -> list[tuple[str, object]]:
    """(keyword, a value just outside it) for every bound of one property."""
    out: list[tuple[str, object]] = []
    if "minimum" in prop:
        out.append(("minimum", prop["minimum"] - 1))
    if "maximum" in prop:
        out.append(("maximum", prop["maximum"] + 1))
    if "minLength" in prop:
        out.append(("minLength", "a" * (prop["minLength"] - 1)))
    if "maxLength" in prop:
        out.append(("maxLength", "a" * (prop["maxLength"] + 1)))
    if "pattern" in prop:
        out.append(("pattern", "Qwen/Qwen3 8B"))
    return out


BOUNDS = [
    pytest.param(name, value, id=f"{name}-{keyword}")
    for name, prop in REQUEST["properties"].items()
    for keyword, value in _beyond(prop)
]


def _estimate(c: httpx.Client, **change: object) -> httpx.Response:
    body = {k: v for k, v in {**BODY, **change}.items() if v is not None}
    return c.post(ESTIMATE, json=body)


def _refused(r: httpx.Response, param: str) -> str:
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["param"] == param
    assert error["message"].startswith(f"{param}: ")
    return str(error["message"])


def test_every_bound_of_the_reference_is_in_the_spec() -> None:
    assert len(BOUNDS) == 13  # the reference's 10, and `minimum: 1` of the three optional counts


@pytest.mark.parametrize(("name", "value"), BOUNDS)
def test_every_bound_is_refused_naming_the_field(
    emulator_client: httpx.Client, name: str, value: object
) -> None:
    _refused(_estimate(emulator_client, **{name: value}), name)


@pytest.mark.parametrize("name", REQUEST["required"])
def test_every_required_field_is_required(emulator_client: httpx.Client, name: str) -> None:
    _refused(_estimate(emulator_client, **{name: None}), name)


def test_values_on_the_bounds_are_accepted(emulator_client: httpx.Client) -> None:
    for change in (
        {"episodes": 1, "concurrency": 1, "prompt_tokens": 1, "turns": 1},
        {"episodes": 10_000_000, "turns": 1024, "generated_tokens_per_turn": 1},
        {"base_model": "emulator/tiny-1k", "added_tokens_per_turn": 256},
    ):
        r = _estimate(emulator_client, **change)
        assert r.status_code == 200, (change, r.text)


def test_added_tokens_below_generated_tokens_are_refused(emulator_client: httpx.Client) -> None:
    message = _refused(
        _estimate(emulator_client, added_tokens_per_turn=255), "added_tokens_per_turn"
    )
    assert "generated_tokens_per_turn (256)" in message
    assert "emulator" not in message  # a rule of the reference, not the emulator's own


def test_an_unsupported_model_or_gpu_type_is_refused_naming_it(
    emulator_client: httpx.Client,
) -> None:
    message = _refused(_estimate(emulator_client, base_model="zai-org/GLM-5.3"), "base_model")
    assert "'zai-org/GLM-5.3' does not support rollout estimates" in message
    assert "emulator/tiny-1k" in message
    _refused(_estimate(emulator_client, gpu_type="H100-80GB"), "gpu_type")
    _refused(_estimate(emulator_client, unknown=1), "unknown")
    _refused(_estimate(emulator_client, lora_enabled="yes"), "lora_enabled")


def test_the_answer_is_the_gpu_model_s_estimate(emulator_client: httpx.Client) -> None:
    change = {"num_generator_replicas": 2, "lora_enabled": False, "episodes_per_prompt": 4}
    r = _estimate(emulator_client, gpu_type="B200-SXM", **change)
    assert r.status_code == 200, r.text
    assert_schema(r.json(), "RolloutEstimate")
    expected = estimate_rollout(RolloutWorkload(**{**DEFAULTS, **BODY, **change}))
    assert r.json() == pytest.approx(dataclasses.asdict(expected))
    # Absent optional fields take the spec's x-server-default: LoRA, one replica, a trainer.
    defaults = _estimate(emulator_client).json()
    assert DEFAULTS == {"lora_enabled": True, "num_generator_replicas": 1, "sampling_only": False}
    expected = estimate_rollout(RolloutWorkload(**{**DEFAULTS, **BODY}))
    assert defaults == pytest.approx(dataclasses.asdict(expected))
    assert defaults["billed_gpu_hours"] == pytest.approx(2 * defaults["generator_gpu_hours"])
    assert _estimate(emulator_client).json() == defaults  # deterministic


def test_the_request_schema_is_the_gpu_model_s_workload() -> None:
    fields = {f.name for f in dataclasses.fields(RolloutWorkload)}
    assert set(REQUEST["properties"]) - {"gpu_type"} == fields


def test_the_estimate_needs_a_key() -> None:
    with emulator_test_client(create_app(), api_key=None) as c:
        assert c.post(ESTIMATE, json=BODY).status_code == 401


def test_the_official_sdk_reaches_it_through_its_generic_post(sdk: Any) -> None:
    """No SDK release has the estimate yet: a user of together==3.1.1 posts it (the API's own
    errors come back as the SDK's exceptions)."""
    answer = sdk.post("/v1/rl/rollouts/estimate", body=BODY, cast_to=object)
    assert_schema(answer, "RolloutEstimate")
    assert answer["rollout_seconds"] > 0
    together = pytest.importorskip("together")
    with pytest.raises(together.BadRequestError, match="added_tokens_per_turn"):
        sdk.post(
            "/v1/rl/rollouts/estimate", body={**BODY, "added_tokens_per_turn": 1}, cast_to=object
        )
