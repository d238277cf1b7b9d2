"""The emulator's GPU model: operation timing and the rollout estimator, checked by their rules."""

from __future__ import annotations

import dataclasses

import pytest
from together_rl_emulator.base._catalog import CATALOG, TINY_MODEL
from together_rl_emulator.base._spec import GPU_TYPES
from together_rl_emulator.compute._policy_model import init_policy
from together_rl_emulator.cost._gpu_model import (
    FORWARD_ONLY_SECONDS,
    GPU,
    OPERATION_OVERHEAD_S,
    OperationWork,
    RolloutWorkload,
    estimate_rollout,
    operation_seconds,
    trainer_gpus,
)
from together_rl_emulator.service._kinds import KINDS, kind_named
from together_rl_emulator.service._model_resources import estimate_price_per_hour

REAL_MODEL = "Qwen/Qwen3-8B"


def seconds_of(base_model: str, kind: str, **work: int) -> float:
    """The GPU model's time of an operation of `kind` (its registry entry's cost) doing `work`."""
    return operation_seconds(base_model, kind_named(kind).seconds, OperationWork(**work))


WORK = {"input_tokens": 1_000, "output_tokens": 1_000, "sequences": 4}
WORKLOAD = RolloutWorkload(
    base_model=REAL_MODEL,
    episodes=1_000,
    concurrency=64,
    prompt_tokens=512,
    turns=3,
    generated_tokens_per_turn=256,
    added_tokens_per_turn=384,
    num_generator_replicas=1,
    lora_enabled=True,
    sampling_only=False,
)


def test_the_gpu_is_the_spec_s_post_training_gpu() -> None:
    assert GPU.name == GPU_TYPES[0] == "B200-SXM"


def test_the_tiny_model_s_parameter_count_is_its_policy_s_weights() -> None:
    policy = init_policy(CATALOG[TINY_MODEL].vocab_size, seed=0)
    assert CATALOG[TINY_MODEL].parameters == policy.b.size + policy.W.size + policy.E.size


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_operation_kind_has_a_time(kind: str) -> None:
    assert seconds_of(REAL_MODEL, kind, **WORK) > OPERATION_OVERHEAD_S


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_tiny_model_takes_milliseconds_or_less(kind: str) -> None:
    assert seconds_of(TINY_MODEL, kind, **WORK) < 0.01


def test_a_forward_only_pass_is_a_third_of_forward_and_backward() -> None:
    fb = seconds_of(REAL_MODEL, "forward-backward", input_tokens=32_768)
    forward = operation_seconds(REAL_MODEL, FORWARD_ONLY_SECONDS, OperationWork(32_768))
    work = (fb - OPERATION_OVERHEAD_S) / (forward - OPERATION_OVERHEAD_S)
    assert work == pytest.approx(3.0)


def test_an_unknown_kind_or_model_is_named() -> None:
    with pytest.raises(ValueError, match="'forward-forward'"):
        kind_named("forward-forward")
    with pytest.raises(ValueError, match="'org/none'"):
        seconds_of("org/none", "sample")


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("field", ["input_tokens", "output_tokens", "sequences"])
def test_more_work_never_takes_less_time(kind: str, field: str) -> None:
    times = [
        seconds_of(REAL_MODEL, kind, **dict(WORK, **{field: WORK[field] * k})) for k in (1, 2, 8)
    ]
    if field == "sequences":  # the same tokens over more samples: shorter samples
        times = [
            seconds_of(REAL_MODEL, kind, **dict(WORK, sequences=4 * k, output_tokens=1_000 * k))
            for k in (1, 2, 8)
        ]
    assert times == sorted(times)


def test_the_same_tokens_over_more_samples_never_take_longer() -> None:
    times = [
        seconds_of(REAL_MODEL, "sample", output_tokens=1_024, sequences=n)
        for n in (0, 1, 4, 16, 1_024)
    ]
    assert times == sorted(times, reverse=True)
    assert times[0] == times[1]  # 0 samples counts as 1


def test_the_work_that_an_operation_does_is_what_it_costs() -> None:
    fb = [seconds_of(REAL_MODEL, "forward-backward", input_tokens=n) for n in (10**3, 10**4)]
    assert fb[1] > 5 * fb[0]
    sample = [seconds_of(REAL_MODEL, "sample", output_tokens=n) for n in (1, 64)]
    assert sample[1] > 30 * sample[0]
    # Decoding one sequence at a time is bound by reading the weights: batching is nearly free.
    one = seconds_of(REAL_MODEL, "sample", output_tokens=512, sequences=1)
    eight = seconds_of(REAL_MODEL, "sample", output_tokens=8 * 512, sequences=8)
    assert eight < 1.5 * one


def test_real_models_take_realistic_times() -> None:
    # 6 x 8.2e9 x 32,768 FLOPs at 40 % of 2.25 PFLOP/s: about 1.8 s.
    fb = seconds_of(REAL_MODEL, "forward-backward", input_tokens=32_768)
    assert 1.0 < fb < 3.0
    # 512 decode steps, each reading 16.4 GB of weights at 80 % of 7.7 TB/s: about 1.4 s.
    sample = seconds_of(REAL_MODEL, "sample", input_tokens=256, output_tokens=512)
    assert 1.0 < sample < 2.0
    assert 0.01 < seconds_of(REAL_MODEL, "optim-step") < 0.2


# ------------------------------------------------------------------ the rollout estimator


def _seconds(**change: object) -> float:
    return estimate_rollout(dataclasses.replace(WORKLOAD, **change)).rollout_seconds


@pytest.mark.parametrize(
    "field",
    ["episodes", "prompt_tokens", "turns", "generated_tokens_per_turn", "added_tokens_per_turn"],
)
def test_the_rollout_takes_longer_with_more_episodes_tokens_and_turns(field: str) -> None:
    base = getattr(WORKLOAD, field)
    times = [_seconds(**{field: base * k}) for k in (1, 2, 4)]
    if field == "generated_tokens_per_turn":  # keep added >= generated
        times = [
            _seconds(generated_tokens_per_turn=base * k, added_tokens_per_turn=base * k + 128)
            for k in (1, 2, 4)
        ]
    assert times[0] < times[1] < times[2]


def test_the_rollout_takes_less_time_with_more_concurrency() -> None:
    times = [_seconds(concurrency=b) for b in (1, 8, 64, 512, 1_000, 10_000)]
    assert times == sorted(times, reverse=True)
    assert times[0] > 10 * times[3]
    # Never more running than there are episodes: more concurrency changes nothing then.
    assert times[-1] == pytest.approx(times[-2])


def test_episodes_sharing_prompts_prefill_less() -> None:
    alone = _seconds(prompt_tokens=8_192)
    assert _seconds(prompt_tokens=8_192, episodes_per_prompt=8) < alone
    assert _seconds(prompt_tokens=8_192, distinct_prompts_per_replica=8) < alone


def test_more_replicas_finish_sooner() -> None:
    assert _seconds(num_generator_replicas=4, concurrency=256) < _seconds(concurrency=256)


def test_billed_gpu_hours_count_every_gpu_of_the_resource() -> None:
    for lora in (True, False):
        for replicas in (1, 3):
            w = dataclasses.replace(WORKLOAD, lora_enabled=lora, num_generator_replicas=replicas)
            e = estimate_rollout(w)
            hours = e.rollout_seconds / 3600
            assert e.generator_gpu_hours == pytest.approx(replicas * hours)
            assert e.billed_gpu_hours == pytest.approx((trainer_gpus(lora) + replicas) * hours)
            # The same price table as estimate-cost: an hour of the resource costs its price.
            assert e.price == pytest.approx(hours * estimate_price_per_hour(lora, replicas))


def test_a_sampling_only_resource_bills_only_its_generators() -> None:
    e = estimate_rollout(dataclasses.replace(WORKLOAD, sampling_only=True))
    assert e.billed_gpu_hours == pytest.approx(e.generator_gpu_hours)


def test_the_price_is_billed_gpu_hours_times_the_list_price() -> None:
    e = estimate_rollout(WORKLOAD)
    assert e.price_per_gpu_hour == GPU.price_per_gpu_hour
    assert e.price == pytest.approx(e.billed_gpu_hours * e.price_per_gpu_hour)
    assert e.currency == "USD"


def test_the_estimate_is_deterministic() -> None:
    assert estimate_rollout(WORKLOAD) == estimate_rollout(dataclasses.replace(WORKLOAD))
