"""Builders: losses' bounds, the sample shift and masking, non-finite refusal, and the wire
body compared with what the official SDK (together==3.1.1) sends for the same data."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import orjson
import pytest
import together_rl
import yaml
from together_rl import InvalidRequestError, Sample, losses
from together_rl._bodies import build_forward_backward, encode_body

ROOT = Path(__file__).resolve().parents[2]
_SPEC = yaml.safe_load((ROOT / "spec" / "openapi.yaml").read_text())
#: LossType value -> its LossConfig params key, read from the spec's LossConfig
_LOSS_PARAMS_KEYS = {
    "LOSS_TYPE_" + key.removesuffix("_params").upper(): key
    for key in _SPEC["components"]["schemas"]["LossConfig"]["properties"]
    if key.endswith("_params")
}


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: losses.GRPO(clip_low_threshold=1.1), "loss.grpo_params.clip_low_threshold"),
        (lambda: losses.GRPO(clip_high_threshold=0.9), "loss.grpo_params.clip_high_threshold"),
        (lambda: losses.GRPO(beta=-0.1), "loss.grpo_params.beta"),
        (lambda: losses.GRPO(beta=math.nan), "loss.grpo_params.beta"),
        (lambda: losses.GRPO(agg_type="mean_of_nothing"), "loss.grpo_params.agg_type"),
        (lambda: losses.PPO(clip_low_threshold=-0.1), "loss.ppo_params.clip_low_threshold"),
        (lambda: losses.PPO(clip_high_threshold=0.5), "loss.ppo_params.clip_high_threshold"),
        (
            lambda: losses.CISPO(clip_low_threshold=5, clip_high_threshold=4),
            "loss.cispo_params.clip_low_threshold",
        ),
        (lambda: losses.DRO(), "loss.dro_params.beta"),
        (lambda: losses.DRO(beta=-1), "loss.dro_params.beta"),
        (lambda: losses.DPPO(delta_low=1.5), "loss.dppo_params.delta_low"),
        (lambda: losses.DPPO(delta_high=math.inf), "loss.dppo_params.delta_high"),
    ],
)
def test_loss_bounds_name_the_field(make: Any, field: str) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        make()
    assert caught.value.field == field
    assert field in str(caught.value)


@pytest.mark.parametrize(
    "builder", [*losses.Loss.__subclasses__(), together_rl.AdamParams, together_rl.SamplingParams]
)
def test_builder_fields_are_the_specs_keyword_only(builder: type) -> None:
    """Each builder has exactly the fields of its spec object (read here from the spec itself),
    and takes them by keyword only: the spec's field order means nothing."""
    name = builder.__name__ if builder.__module__ == "together_rl._bodies" else None
    loss_key = None if name else _LOSS_PARAMS_KEYS.get(builder.wire_type)
    schema = _SPEC["components"]["schemas"]
    if name:
        expected = set(schema[name]["properties"])
    elif loss_key is None:  # a loss without a params object
        expected = set()
    else:
        ref = schema["LossConfig"]["properties"][loss_key]["$ref"].rsplit("/", 1)[1]
        expected = set(schema[ref].get("properties", {}))
    assert {f.name for f in dataclasses.fields(builder)} == expected
    assert all(f.kw_only for f in dataclasses.fields(builder))
    if expected:
        with pytest.raises(TypeError):
            builder(1.0)


def test_loss_wire_shapes() -> None:
    assert losses.CrossEntropy().to_wire() == {"type": "LOSS_TYPE_CROSS_ENTROPY"}
    assert losses.ImportanceSampling().to_wire() == {"type": "LOSS_TYPE_IMPORTANCE_SAMPLING"}
    assert losses.GRPO(
        clip_low_threshold=0.8, agg_type="token_mean", ratio_type="sequence"
    ).to_wire() == {
        "type": "LOSS_TYPE_GRPO",
        "grpo_params": {
            "clip_low_threshold": 0.8,
            "agg_type": "GRPO_LOSS_AGGREGATION_TYPE_TOKEN_MEAN",
            "ratio_type": "GRPO_LOSS_RATIO_TYPE_SEQUENCE",
        },
    }
    assert losses.DRO(beta=0.05).to_wire() == {
        "type": "LOSS_TYPE_DRO",
        "dro_params": {"beta": 0.05},
    }
    assert losses.DPPO(delta_low=0.1).to_wire() == {
        "type": "LOSS_TYPE_DPPO",
        "dppo_params": {"delta_low": 0.1},
    }


def test_dict_losses_checked_like_builders() -> None:
    sample = Sample.from_completion([1, 2], [3], logprobs=[-1.0], advantages=1.0)
    body = build_forward_backward(
        [sample], {"type": "ppo", "ppo_params": {"clip_high_threshold": 1.3}}
    )
    assert body["loss"] == {"type": "LOSS_TYPE_PPO", "ppo_params": {"clip_high_threshold": 1.3}}
    with pytest.raises(InvalidRequestError) as caught:
        build_forward_backward([sample], {"type": "LOSS_TYPE_PPO", "grpo_params": {}})
    assert caught.value.field == "loss.grpo_params"
    with pytest.raises(InvalidRequestError) as caught:
        build_forward_backward([sample], {"type": "LOSS_TYPE_UNSPECIFIED"})
    assert caught.value.field == "loss.type"


def test_from_completion_shift_and_mask() -> None:
    sample = Sample.from_completion(
        [10, 11, 12],
        [20, 21],
        logprobs=[-0.5, -0.25],
        advantages=2.0,
        reference_logprobs=[-0.4, -0.2],
    )
    wire = sample.to_wire()
    tokens = wire["model_input"]["chunks"][0]["encoded_text"]["tokens"]
    inputs = wire["loss_fn_inputs"]
    assert list(tokens) == [10, 11, 12, 20]
    assert list(inputs["target_tokens"]["data"]) == [11, 12, 20, 21]
    assert list(inputs["logprobs"]["data"]) == [0.0, 0.0, -0.5, -0.25]
    assert list(inputs["advantages"]["data"]) == [0.0, 0.0, 2.0, 2.0]
    assert list(inputs["reference_logprobs"]["data"]) == [0.0, 0.0, -0.4, -0.2]
    assert list(inputs["weights"]["data"]) == [0.0, 0.0, 1.0, 1.0]
    assert {k: v["dtype"] for k, v in inputs.items()} == {
        "target_tokens": "int64",
        "logprobs": "float32",
        "advantages": "float32",
        "reference_logprobs": "float32",
        "weights": "float32",
    }


def test_lists_and_numpy_give_the_same_body() -> None:
    as_lists = Sample.from_completion(
        [1, 2, 3], [4, 5], logprobs=[-1.0, -2.0], advantages=[0.5, 0.5]
    )
    as_arrays = Sample.from_completion(
        np.array([1, 2, 3], dtype=np.int32),
        np.array([4, 5]),
        logprobs=np.array([-1.0, -2.0], dtype=np.float32),
        advantages=np.array([0.5, 0.5]),
    )
    loss = losses.GRPO()
    assert encode_body(build_forward_backward([as_lists], loss)) == encode_body(
        build_forward_backward([as_arrays], loss)
    )


def test_from_completion_checks_lengths() -> None:
    with pytest.raises(InvalidRequestError) as caught:
        Sample.from_completion([1], [2, 3], logprobs=[-1.0])
    assert caught.value.field == "logprobs"


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("as_numpy", [False, True])
def test_non_finite_refused_naming_sample_and_key(bad: float, as_numpy: bool) -> None:
    samples: list[Any] = [
        Sample.from_completion([1, 2], [3, 4], logprobs=[-1.0, -1.0], advantages=1.0)
        for _ in range(4)
    ]
    advantages = [0.0, 0.0, bad]
    samples[3] = {
        "model_input": {"chunks": [{"encoded_text": {"tokens": [1, 2, 3]}}]},
        "loss_fn_inputs": {
            "target_tokens": {"data": [2, 3, 4], "dtype": "int64"},
            "logprobs": {"data": [0.0, -1.0, -1.0], "dtype": "float32"},
            "advantages": {
                "data": np.array(advantages) if as_numpy else advantages,
                "dtype": "float32",
            },
        },
    }
    with pytest.raises(InvalidRequestError) as caught:
        encode_body(build_forward_backward(samples, losses.GRPO()))
    assert caught.value.field == "samples[3].loss_fn_inputs.advantages"
    assert "samples[3].loss_fn_inputs.advantages contains" in str(caught.value)
    assert ("NaN" if math.isnan(bad) else "Infinity") in str(caught.value)


def test_sample_checks_name_the_field() -> None:
    good = Sample.from_completion([1, 2], [3, 4], logprobs=[-1.0, -1.0], advantages=1.0)
    with pytest.raises(InvalidRequestError) as caught:
        build_forward_backward([good, good], losses.GRPO(beta=0.1))
    assert caught.value.field == "samples[0].loss_fn_inputs.reference_logprobs"
    short = good.to_wire()
    short["loss_fn_inputs"] = {
        **short["loss_fn_inputs"],
        "advantages": {"data": [1.0], "dtype": "float32"},
    }
    with pytest.raises(InvalidRequestError) as caught:
        build_forward_backward([good, short], losses.GRPO())
    assert caught.value.field == "samples[1].loss_fn_inputs.advantages"
    both = good.to_wire()
    both["loss_fn_inputs"] = {
        **both["loss_fn_inputs"],
        "mask": {"data": [0, 0, 1], "dtype": "int64"},
    }
    with pytest.raises(InvalidRequestError) as caught:
        build_forward_backward([both], losses.GRPO())
    assert caught.value.field == "samples[0].loss_fn_inputs.mask"


# ----------------------------------------------------------------------------- official SDK


def sdk_body(samples: list[dict[str, Any]], loss: dict[str, Any], **flags: Any) -> Any:
    """The JSON body the official SDK's Trainer sends for these wire dicts."""
    from together import AsyncTogether
    from together.post_training import SessionClient

    captured: list[bytes] = []

    def handler(request: httpx.Request) -> httpx.Response:
        captured.append(request.content)
        return httpx.Response(
            200,
            json={
                "id": "op-1",
                "status": "TRAINING_OPERATION_STATUS_COMPLETED",
                "output": {"loss": 0.0, "metrics": {}},
            },
        )

    client = AsyncTogether(
        api_key="k",
        base_url="http://sdk.test",
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)),
    )
    session = SessionClient("sess-1", client)
    session.trainer.forward_backward(samples=samples, loss=loss, **flags)  # type: ignore[arg-type]
    assert len(captured) == 1
    return orjson.loads(captured[0])


def sdk_sample(
    prompt: list[int], completion: list[int], **per_token: list[float]
) -> dict[str, Any]:
    """A sample written by hand the way the SDK's Sample docstring says."""
    full = prompt + completion
    pad = [0.0] * (len(prompt) - 1)
    inputs: dict[str, Any] = {"target_tokens": {"data": full[1:], "dtype": "int64"}}
    for name, values in per_token.items():
        inputs[name] = {"data": pad + values, "dtype": "float32"}
    inputs["weights"] = {"data": pad + [1.0] * len(completion), "dtype": "float32"}
    return {
        "model_input": {"chunks": [{"encoded_text": {"tokens": full[:-1]}}]},
        "loss_fn_inputs": inputs,
    }


CASES: list[tuple[Any, dict[str, Any]]] = [
    (
        losses.GRPO(
            clip_low_threshold=0.8,
            clip_high_threshold=1.2,
            beta=0.1,
            agg_type="token_mean",
            ratio_type="token",
        ),
        {"reference_logprobs": True},
    ),
    (losses.PPO(clip_low_threshold=0.8, clip_high_threshold=1.2), {}),
    (losses.CISPO(clip_high_threshold=4.0), {}),
    (losses.DRO(beta=0.05), {}),
    (losses.DPPO(delta_low=0.1, delta_high=0.2), {}),
    (losses.ImportanceSampling(), {}),
    (losses.CrossEntropy(), {"no_policy": True}),
]


@pytest.mark.parametrize(("loss", "options"), CASES, ids=lambda c: type(c).__name__)
@pytest.mark.parametrize("flags", [{}, {"return_loss_fn_outputs": True}])
def test_body_matches_official_sdk(
    loss: Any, options: dict[str, Any], flags: dict[str, Any]
) -> None:
    rng = np.random.default_rng(0)
    ours, theirs = [], []
    for length in (3, 5):
        prompt = [int(t) for t in rng.integers(0, 1000, 4)]
        completion = [int(t) for t in rng.integers(0, 1000, length)]
        per_token: dict[str, list[float]] = {}
        if not options.get("no_policy"):
            per_token["logprobs"] = [float(x) for x in -rng.random(length)]
            per_token["advantages"] = [float(rng.normal())] * length
        if options.get("reference_logprobs"):
            per_token["reference_logprobs"] = [float(x) for x in -rng.random(length)]
        ours.append(Sample.from_completion(prompt, completion, **per_token))
        theirs.append(sdk_sample(prompt, completion, **per_token))
    body = orjson.loads(encode_body(build_forward_backward(ours, loss, **flags)))
    assert body == sdk_body(theirs, loss.to_wire(), **flags)
    assert body["samples"] == theirs  # and the builder wrote what the SDK docs prescribe


def test_loss_input_rules_are_the_specs() -> None:
    """Each builder needs the sample inputs `LossConfig.x-required-inputs` lists for its type,
    and the rules the generated SCHEMA carries are the spec's, as the wrapper reads them:
    dtypes per key, exclusive keys, and GRPO's beta > 0 requiring reference log-probs."""
    import yaml
    from together_rl._fields import EXCLUSIVE_INPUTS, INPUT_DTYPES

    schemas = yaml.safe_load((ROOT / "spec" / "openapi.yaml").read_text())["components"]["schemas"]
    required = schemas["LossConfig"]["x-required-inputs"]
    builders = [losses.CrossEntropy(), losses.GRPO(), losses.ImportanceSampling(), losses.PPO()]
    builders += [losses.CISPO(), losses.DRO(beta=0.1), losses.DPPO()]
    assert {b.wire_type for b in builders} == set(required)
    for builder in builders:
        assert builder.required_sample_inputs() == frozenset(required[builder.wire_type])
    inputs = schemas["LossFnInputs"]
    assert {k: tuple(v) for k, v in inputs["x-input-dtypes"].items()} == INPUT_DTYPES
    assert [list(group) for group in EXCLUSIVE_INPUTS] == inputs["x-exclusive-inputs"]
    when_positive = schemas["GRPOLossParams"]["properties"]["beta"][
        "x-requires-inputs-when-positive"
    ]
    grpo = frozenset(required["LOSS_TYPE_GRPO"])
    assert losses.GRPO(beta=0.1).required_sample_inputs() == grpo | set(when_positive)
    assert losses.GRPO(beta=0.0).required_sample_inputs() == grpo


def test_every_public_method_has_a_docstring() -> None:
    """Every method and property of every class `together_rl` exports says what it does."""
    import inspect

    import together_rl

    undocumented = []
    for name in together_rl.__all__:
        cls = getattr(together_rl, name)
        if not inspect.isclass(cls):
            continue
        for attr, member in vars(cls).items():
            target = member.fget if isinstance(member, property) else member
            target = getattr(target, "__func__", target)  # classmethods, staticmethods
            if not attr.startswith("_") and callable(target) and not inspect.getdoc(target):
                undocumented.append(f"{name}.{attr}")
    assert not undocumented


def test_from_sequence_carries_tokens_logprobs_and_routed_experts_key() -> None:
    """A wrapper `SampledSequence` and the official SDK's (decimal-string tokens) give the
    `from_completion` sample of their tokens and log-probs, with their routed-experts key."""
    from together.types.post_training import SampledSequence as SdkSequence
    from together_rl._results import SampledSequence

    ours = SampledSequence(np.array([7, 8]), np.array([-0.5, -1.5]), "STOP_REASON_LENGTH",
                           routed_experts_key="rex-1")  # fmt: skip
    sdk = SdkSequence(tokens=["7", 8], logprobs=[-0.5, -1.5], stop_reason="STOP_REASON_LENGTH",
                      prompt_cache_hit_tokens=0, routed_experts_key="rex-1")  # fmt: skip
    expected = Sample.from_completion([1, 2], [7, 8], logprobs=[-0.5, -1.5], advantages=2.0,
                                      routed_experts_key="rex-1").to_wire()  # fmt: skip
    for sequence in (ours, sdk):
        wire = Sample.from_sequence([1, 2], sequence, advantages=2.0).to_wire()
        assert wire["routed_experts_key"] == "rex-1"
        assert wire["model_input"]["chunks"][0]["encoded_text"]["tokens"].tolist() == [1, 2, 7]
        for key, tensor in expected["loss_fn_inputs"].items():
            np.testing.assert_array_equal(wire["loss_fn_inputs"][key]["data"], tensor["data"])
    without = SampledSequence(np.array([7]), None, "STOP_REASON_STOP")
    assert "routed_experts_key" not in Sample.from_sequence([1], without).to_wire()
