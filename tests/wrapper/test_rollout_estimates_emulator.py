"""`client.rollouts.estimate` end to end against the emulator (sync and async, in-process and over
loopback): the answer's rules (monotone in the work, billed against generator GPU-hours, the
price), and refusals naming the field, the cross-field rule included."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from together_rl import BadRequestError, InvalidRequestError, RolloutEstimate
from wrapper_helpers import Api, Emulator, connect

WORKLOAD: dict[str, Any] = {
    "episodes": 1_000,
    "concurrency": 64,
    "prompt_tokens": 512,
    "turns": 3,
    "generated_tokens_per_turn": 256,
    "added_tokens_per_turn": 384,
}
MODEL = "Qwen/Qwen3-8B"


def _estimate(api: Api, **change: Any) -> RolloutEstimate:
    estimate = api.call(api.client.rollouts.estimate, MODEL, **{**WORKLOAD, **change})
    assert isinstance(estimate, RolloutEstimate)
    return estimate


def test_the_estimate_follows_the_work_and_the_resource(
    api_factory: Callable[..., Api],
    emulator_factory: Callable[..., Emulator],
    mode: str,
    where: str,
) -> None:
    api = connect(api_factory, mode, emulator_factory(where))
    base = _estimate(api)
    assert base.currency == "USD" and base.rollout_seconds > 0
    for change in ({"episodes": 2_000}, {"prompt_tokens": 4_096}, {"turns": 6}):
        assert _estimate(api, **change).rollout_seconds > base.rollout_seconds, change
    more = _estimate(api, generated_tokens_per_turn=512, added_tokens_per_turn=640)
    assert more.rollout_seconds > base.rollout_seconds
    assert _estimate(api, concurrency=8).rollout_seconds > base.rollout_seconds
    # Billed: the trainer GPU (LoRA) and the generator's; sampling-only: the generator's alone.
    assert base.billed_gpu_hours == pytest.approx(2 * base.generator_gpu_hours)
    assert base.price == pytest.approx(base.billed_gpu_hours * base.price_per_gpu_hour)
    full = _estimate(api, lora_enabled=False, num_generator_replicas=2, gpu_type="B200-SXM")
    assert full.billed_gpu_hours == pytest.approx(2 * full.generator_gpu_hours)
    alone = _estimate(api, sampling_only=True)
    assert alone.billed_gpu_hours == pytest.approx(alone.generator_gpu_hours)
    assert _estimate(api) == base  # deterministic


@pytest.mark.parametrize(
    ("change", "param"),
    [
        ({"episodes": 0}, "episodes"),
        ({"episodes": 10_000_001}, "episodes"),
        ({"concurrency": 0}, "concurrency"),
        ({"turns": 1_025}, "turns"),
        ({"added_tokens_per_turn": 255}, "added_tokens_per_turn"),
        ({"gpu_type": "H100-80GB"}, "gpu_type"),
    ],
)
def test_a_refusal_names_the_field(
    api_factory: Callable[..., Api],
    emulator_factory: Callable[..., Emulator],
    mode: str,
    change: dict[str, Any],
    param: str,
) -> None:
    api = connect(api_factory, mode, emulator_factory("inproc"))
    with pytest.raises(BadRequestError) as caught:
        _estimate(api, **change)
    assert caught.value.param == param
    assert caught.value.operation == "POST /v1/rl/rollouts/estimate"


def test_an_unsupported_model_is_refused_naming_it(
    api_factory: Callable[..., Api], emulator_factory: Callable[..., Emulator], mode: str
) -> None:
    api = connect(api_factory, mode, emulator_factory("inproc"))
    with pytest.raises(BadRequestError, match=r"zai-org/GLM-5\.3") as caught:
        api.call(api.client.rollouts.estimate, "zai-org/GLM-5.3", **WORKLOAD)
    assert caught.value.param == "base_model"


def test_an_option_the_spec_does_not_have_is_refused_before_sending(
    api_factory: Callable[..., Api], emulator_factory: Callable[..., Emulator], mode: str
) -> None:
    api = connect(api_factory, mode, emulator_factory("inproc"))
    with pytest.raises(InvalidRequestError, match="replicas"):
        _estimate(api, replicas=2)
