"""The emulator's request validation: spec schema first, then the semantic rules.

Every refusal must be an `ApiError` 400 whose `param` is the wire path of the offending field.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from together_rl_emulator.base._errors import ApiError
from together_rl_emulator.base._spec import EMULATOR_RULE_NOTE, PARAMS_KEYS, load_spec, spec_bytes
from together_rl_emulator.checking._parameters import validate_parameter
from together_rl_emulator.checking._requests import validate_forward_backward
from together_rl_emulator.checking._validation import format_path, validate_schema
from together_rl_emulator.compute._losses import compute_loss

VOCAB = 1_024
QWEN_VOCAB = 151_936
EXAMPLES = Path(__file__).resolve().parents[2] / "spec" / "examples"
POLICY_LOSSES = [
    "LOSS_TYPE_GRPO",
    "LOSS_TYPE_IMPORTANCE_SAMPLING",
    "LOSS_TYPE_PPO",
    "LOSS_TYPE_CISPO",
    "LOSS_TYPE_DRO",
    "LOSS_TYPE_DPPO",
]
NEEDED_PARAMS = {"LOSS_TYPE_DRO": {"dro_params": {"beta": 0.05}}}


def tensor(data: list[Any], dtype: str = "float32", **extra: Any) -> dict[str, Any]:
    return {"data": data, "dtype": dtype, **extra}


def sample(tokens: list[Any] | None = None, **inputs: dict[str, Any]) -> dict[str, Any]:
    tokens = [1, 2, 3] if tokens is None else tokens
    return {
        "model_input": {"chunks": [{"encoded_text": {"tokens": tokens}}]},
        "loss_fn_inputs": inputs,
    }


def policy_inputs(n: int = 3) -> dict[str, dict[str, Any]]:
    return {
        "target_tokens": tensor(list(range(2, 2 + n)), "int64"),
        "logprobs": tensor([-1.0] * n),
        "advantages": tensor([0.5] * n),
    }


def grpo_body(**loss_extra: Any) -> dict[str, Any]:
    return {
        "samples": [sample(**policy_inputs())],
        "loss": {"type": "LOSS_TYPE_GRPO", **loss_extra},
    }


def ce_body() -> dict[str, Any]:
    return {
        "samples": [
            sample(target_tokens=tensor([2, 3, 4], "int64"), weights=tensor([0.0, 1.0, 0.5]))
        ],
        "loss": {"type": "LOSS_TYPE_CROSS_ENTROPY"},
    }


def refused(body: object, vocab_size: int = VOCAB) -> ApiError:
    with pytest.raises(ApiError) as caught:
        validate_forward_backward(body, vocab_size)
    assert caught.value.status == 400
    assert caught.value.code == "invalid_request"
    return caught.value


def assert_refused(body: object, param: str | None, *reason_parts: str) -> ApiError:
    error = refused(body)
    assert error.param == param, error.message
    for part in reason_parts:
        assert part in error.message, error.message
    if param is not None:
        assert error.message.startswith(f"{param}: ")
    return error


# ------------------------------------------------------------------------------------ spec


def test_spec_is_the_installed_copy_and_parses() -> None:
    spec = load_spec()
    assert spec["openapi"].startswith("3.1")
    assert "ForwardBackwardBody" in spec["components"]["schemas"]
    assert spec_bytes() == spec_bytes()  # cached, stable
    assert b"operationId: forwardBackward" in spec_bytes()
    assert load_spec() is spec


def test_format_path() -> None:
    assert format_path(["samples", 2, "loss_fn_inputs", "advantages", "dtype"]) == (
        "samples[2].loss_fn_inputs.advantages.dtype"
    )
    assert format_path([]) is None
    assert format_path([0, "a"]) == "[0].a"


# ------------------------------------------------------------------------------ valid bodies


def test_valid_grpo_body_becomes_arrays() -> None:
    body = grpo_body(grpo_params={"beta": 0.0})
    body["forward_only"] = True
    request = validate_forward_backward(body, VOCAB)
    assert request.forward_only is True
    assert request.return_loss_fn_outputs is False
    assert request.loss == body["loss"]
    (only,) = request.samples
    assert only.tokens.dtype == np.int64 and only.tokens.tolist() == [1, 2, 3]
    assert only.targets.dtype == np.int64 and only.targets.tolist() == [2, 3, 4]
    assert set(only.inputs) == {"target_tokens", "logprobs", "advantages"}
    for values in only.inputs.values():
        assert values.dtype == np.float64 and values.shape == (3,)
    assert only.inputs["advantages"].tolist() == [0.5, 0.5, 0.5]


def test_chunks_are_concatenated_and_string_token_ids_accepted() -> None:
    body = ce_body()
    body["samples"][0]["model_input"]["chunks"] = [
        {"encoded_text": {"tokens": ["7", 8]}},
        {"encoded_text": {"tokens": ["0009"]}},
    ]
    request = validate_forward_backward(body, VOCAB)
    assert request.samples[0].tokens.tolist() == [7, 8, 9]
    assert request.samples[0].inputs["weights"].tolist() == [0.0, 1.0, 0.5]


@pytest.mark.parametrize("loss_type", ["LOSS_TYPE_CROSS_ENTROPY", *POLICY_LOSSES])
def test_every_loss_type_accepts_its_minimal_inputs(loss_type: str) -> None:
    inputs = (
        {"target_tokens": tensor([2, 3, 4], "int64"), "weights": tensor([1, 1, 0], "int64")}
        if loss_type == "LOSS_TYPE_CROSS_ENTROPY"
        else policy_inputs()
    )
    body = {
        "samples": [sample(**inputs)],
        "loss": {"type": loss_type, **NEEDED_PARAMS.get(loss_type, {})},
    }
    request = validate_forward_backward(body, VOCAB)
    own = PARAMS_KEYS[body["loss"]["type"]]
    assert request.loss == {k: v for k, v in body["loss"].items() if k in ("type", own)}
    (only,) = request.samples
    assert only.tokens.tolist() == [1, 2, 3]
    assert only.targets.tolist() == inputs["target_tokens"]["data"]
    assert {k: v.tolist() for k, v in only.inputs.items()} == {
        k: [float(x) for x in v["data"]] for k, v in inputs.items()
    }


def test_flags_and_optional_inputs() -> None:
    body = grpo_body(
        grpo_params={
            "beta": 0.1,
            "clip_low_threshold": 0.8,
            "clip_high_threshold": 1.2,
            "agg_type": "GRPO_LOSS_AGGREGATION_TYPE_TOKEN_MEAN",
            "ratio_type": "GRPO_LOSS_RATIO_TYPE_SEQUENCE",
        }
    )
    inputs = body["samples"][0]["loss_fn_inputs"]
    inputs["reference_logprobs"] = tensor([-1.0, -1.0, -1.0])
    inputs["mask"] = tensor([0, 1, 1], "int64", shape=[3])
    inputs["my_extra"] = tensor([1, 2, 2**63 - 1], "int64")  # unknown keys are accepted
    body["return_loss_fn_outputs"] = True
    request = validate_forward_backward(body, VOCAB)
    assert request.return_loss_fn_outputs is True and request.forward_only is False
    assert set(request.samples[0].inputs) == {
        "target_tokens",
        "logprobs",
        "advantages",
        "reference_logprobs",
        "mask",
        "my_extra",
    }


def test_reference_logprobs_outside_grpo_is_accepted_and_kept() -> None:
    body = grpo_body()
    body["loss"] = {"type": "LOSS_TYPE_PPO"}
    body["samples"][0]["loss_fn_inputs"]["reference_logprobs"] = tensor([-1.0, -2.0, -3.0])
    request = validate_forward_backward(body, VOCAB)
    assert "reference_logprobs" in request.samples[0].inputs


def test_int64_tensor_accepts_integral_floats() -> None:
    body = grpo_body()
    body["samples"][0]["loss_fn_inputs"]["mask"] = tensor([1.0, 0.0, 1], "int64")
    request = validate_forward_backward(body, VOCAB)
    assert request.samples[0].inputs["mask"].tolist() == [1.0, 0.0, 1.0]


def test_cispo_bounds_may_be_equal() -> None:
    body = grpo_body()
    body["loss"] = {
        "type": "LOSS_TYPE_CISPO",
        "cispo_params": {"clip_low_threshold": 2.0, "clip_high_threshold": 2.0},
    }
    request = validate_forward_backward(body, VOCAB)
    own = PARAMS_KEYS[body["loss"]["type"]]
    assert request.loss == {k: v for k, v in body["loss"].items() if k in ("type", own)}


# ---------------------------------------------------------------------- schema-level refusals


def test_non_object_body() -> None:
    assert_refused([1, 2], None, "the request body must be a JSON object, got array")
    assert_refused("x", None, "must be a JSON object, got string")
    assert_refused(None, None, "must be a JSON object, got null")


def test_missing_required_property_names_it() -> None:
    body = grpo_body()
    del body["loss"]
    assert_refused(body, "loss", "'loss' is a required property")
    body = grpo_body()
    del body["loss"]["type"]
    assert_refused(body, "loss.type", "'type' is a required property")


def test_unexpected_property_is_named_with_the_allowed_ones() -> None:
    body = grpo_body()
    body["foo"] = 1
    error = assert_refused(body, "foo", "unexpected property 'foo'")
    assert "samples" in error.message and "return_loss_fn_outputs" in error.message
    body = grpo_body()
    body["samples"][0]["model_input"]["bar"] = []
    assert_refused(body, "samples[0].model_input.bar", "unexpected property 'bar'")


def test_unexpected_property_of_an_empty_object() -> None:
    body = ce_body()
    body["loss"]["cross_entropy_params"] = {"label_smoothing": 0.1}
    assert_refused(
        body,
        "loss.cross_entropy_params.label_smoothing",
        "unexpected property 'label_smoothing'; this object takes none",
    )


def test_wrong_dtype_enum() -> None:
    body = grpo_body()
    body["samples"][0]["loss_fn_inputs"]["advantages"]["dtype"] = "float64"
    assert_refused(
        body,
        "samples[0].loss_fn_inputs.advantages.dtype",
        "'float64' is not one of ['int64', 'float32']",
    )


@pytest.mark.parametrize(
    ("mutate", "param", "reason"),
    [
        (lambda b: b["loss"].update(type={"a": 1}), "loss.type", "expected string, got object"),
        (lambda b: b["loss"].update(type=3), "loss.type", "expected string, got integer"),
        (lambda b: b.update(loss="LOSS_TYPE_GRPO"), "loss", "expected object, got string"),
        (lambda b: b.update(samples={}), "samples", "expected array, got object"),
        (lambda b: b.update(samples=[]), "samples", "at least 1 item"),
        (lambda b: b.update(forward_only="yes"), "forward_only", "expected boolean, got string"),
        (
            lambda b: b.update(return_loss_fn_outputs=1),
            "return_loss_fn_outputs",
            "expected boolean",
        ),
        (
            lambda b: b["samples"][0]["loss_fn_inputs"]["logprobs"]["data"].__setitem__(1, "x"),
            "samples[0].loss_fn_inputs.logprobs.data[1]",
            "expected number, got string",
        ),
        (
            lambda b: b["samples"][0]["loss_fn_inputs"]["logprobs"]["data"].__setitem__(2, None),
            "samples[0].loss_fn_inputs.logprobs.data[2]",
            "expected number, got null",
        ),
        (
            lambda b: b["samples"][0]["loss_fn_inputs"]["logprobs"]["data"].__setitem__(0, True),
            "samples[0].loss_fn_inputs.logprobs.data[0]",
            "expected number, got boolean",
        ),
        (
            lambda b: b["samples"][0]["loss_fn_inputs"]["logprobs"].update(data=3),
            "samples[0].loss_fn_inputs.logprobs.data",
            "expected array, got integer",
        ),
        (
            lambda b: b["samples"][0]["loss_fn_inputs"].update(logprobs=[1.0]),
            "samples[0].loss_fn_inputs.logprobs",
            "expected object, got array",
        ),
        (
            lambda b: b["samples"][0]["model_input"].update(chunks=[]),
            "samples[0].model_input.chunks",
            "at least 1 item",
        ),
        (
            lambda b: b["samples"][0].update(routed_experts_key=5),
            "samples[0].routed_experts_key",
            "expected string, got integer",
        ),
        (
            lambda b: b["loss"].update(grpo_params={"clip_low_threshold": 2}),
            "loss.grpo_params.clip_low_threshold",
            "2 is greater than the maximum of 1",
        ),
        (
            lambda b: b["loss"].update(grpo_params={"clip_high_threshold": 0.9}),
            "loss.grpo_params.clip_high_threshold",
            "less than the minimum of 1",
        ),
        (
            lambda b: b["loss"].update(grpo_params={"beta": "0.1"}),
            "loss.grpo_params.beta",
            "expected number, got string",
        ),
        (
            lambda b: b["loss"].update(grpo_params={"agg_type": "MEAN"}),
            "loss.grpo_params.agg_type",
            "'MEAN' is not one of",
        ),
        (
            lambda b: b["samples"][0]["loss_fn_inputs"].update(
                mask=tensor([1, 1, 1], "int64", shape=[-3])
            ),
            "samples[0].loss_fn_inputs.mask.shape[0]",
            "less than the minimum of 0",
        ),
    ],
)
def test_wrong_json_types_and_schema_bounds(mutate: Any, param: str, reason: str) -> None:
    body = grpo_body()
    mutate(body)
    assert_refused(body, param, reason)


@pytest.mark.parametrize(
    ("token", "reason"),
    [
        (1.5, "expected integer or string, got number"),
        (None, "expected integer or string, got null"),
        ([1], "expected integer or string, got array"),
        (-1, "-1 is less than the minimum of 0"),
        ("1e3", "string token ids must be decimal integers of at most 19 digits, got '1e3'"),
        ("-4", "string token ids must be decimal integers"),
        (" 4", "string token ids must be decimal integers"),
        ("1" * 20, "at most 19 digits"),
    ],
)
def test_token_ids_of_the_wrong_form(token: object, reason: str) -> None:
    body = grpo_body()
    body["samples"][0]["model_input"]["chunks"][0]["encoded_text"]["tokens"][1] = token
    assert_refused(body, "samples[0].model_input.chunks[0].encoded_text.tokens[1]", reason)


def test_nan_and_infinity_from_a_lenient_decoder_are_refused() -> None:
    for bad in (math.nan, math.inf, -math.inf):
        body = grpo_body()
        body["samples"][0]["loss_fn_inputs"]["advantages"]["data"][1] = bad
        error = assert_refused(body, "samples[0].loss_fn_inputs.advantages.data[1]", "NaN")
        assert "null" not in error.message


def test_absurd_nesting_is_a_400() -> None:
    deep: Any = 1
    for _ in range(100_000):
        deep = [deep]
    body = grpo_body()
    body["samples"][0]["loss_fn_inputs"]["advantages"]["data"] = [deep, 1.0, 1.0]
    assert_refused(body, None, "nested too deeply")
    assert_refused({"samples": deep, "loss": {"type": "LOSS_TYPE_GRPO"}}, None, "nested too deeply")
    assert_refused(deep, None, "must be a JSON object")


def test_validate_schema_other_schemas() -> None:
    validate_schema("SessionCreate", {"model_resources_id": "mr-1"})
    with pytest.raises(ApiError) as caught:
        validate_schema("SessionCreate", {"model_resources_id": ""})
    assert caught.value.param == "model_resources_id"
    assert "must not be empty" in caught.value.message
    with pytest.raises(ApiError) as caught:
        validate_schema("ModelResourcesCreate", {"base_model": "x", "inactive_timeout": -1})
    assert caught.value.param == "inactive_timeout"
    with pytest.raises(KeyError):
        validate_schema("NoSuchSchema", {})


# -------------------------------------------------------------------- semantic refusals: loss


def test_unspecified_loss_type_is_refused() -> None:
    assert_refused(
        grpo_body() | {"loss": {"type": "LOSS_TYPE_UNSPECIFIED"}},
        "loss.type",
        "LOSS_TYPE_UNSPECIFIED is not a loss",
    )


def test_a_params_object_of_another_loss_is_accepted_and_ignored() -> None:
    """The official SDK: the server drops a foreign params object silently. The math reads only
    `type` and its own params object."""
    own = {"clip_low_threshold": 0.7}
    body = grpo_body(grpo_params=own, ppo_params={"clip_low_threshold": 0.8}, cispo_params={})
    assert validate_forward_backward(body, VOCAB).loss == {
        "type": "LOSS_TYPE_GRPO",
        "grpo_params": own,
    }
    body = grpo_body()
    body["loss"] = {"type": "LOSS_TYPE_IMPORTANCE_SAMPLING", "grpo_params": {"beta": 0.5}}
    assert validate_forward_backward(body, VOCAB).loss == {"type": "LOSS_TYPE_IMPORTANCE_SAMPLING"}
    # Still checked against its schema: a foreign object must be one the spec declares.
    body["loss"] = {"type": "LOSS_TYPE_IMPORTANCE_SAMPLING", "ppo_params": {"clip": 1}}
    assert_refused(body, "loss.ppo_params.clip", "unexpected property")


def test_dro_requires_its_params() -> None:
    body = grpo_body()
    body["loss"] = {"type": "LOSS_TYPE_DRO"}
    assert_refused(body, "loss.dro_params", "required for LOSS_TYPE_DRO")
    body["loss"] = {"type": "LOSS_TYPE_DRO", "dro_params": {}}
    assert_refused(body, "loss.dro_params.beta", "'beta' is a required property")


def test_cispo_low_must_not_exceed_high() -> None:
    body = grpo_body()
    body["loss"] = {
        "type": "LOSS_TYPE_CISPO",
        "cispo_params": {"clip_low_threshold": 3.0, "clip_high_threshold": 2.0},
    }
    assert_refused(body, "loss.cispo_params.clip_low_threshold", "exceeds clip_high_threshold")
    body["loss"]["cispo_params"] = {"clip_low_threshold": 5.0}  # default high is 4.0
    assert_refused(body, "loss.cispo_params.clip_low_threshold", "4.0, the default")


@pytest.mark.parametrize(
    ("loss", "param"),
    [
        ({"type": "LOSS_TYPE_GRPO", "grpo_params": {"beta": math.inf}}, "loss.grpo_params.beta"),
        (
            {"type": "LOSS_TYPE_DPPO", "dppo_params": {"delta_low": 1.5}},
            "loss.dppo_params.delta_low",
        ),
        ({"type": "LOSS_TYPE_DRO", "dro_params": {"beta": -0.1}}, "loss.dro_params.beta"),
        (
            {"type": "LOSS_TYPE_PPO", "ppo_params": {"clip_low_threshold": -0.1}},
            "loss.ppo_params.clip_low_threshold",
        ),
    ],
)
def test_param_bounds(loss: dict[str, Any], param: str) -> None:
    assert_refused(grpo_body() | {"loss": loss}, param)


# ----------------------------------------------------------------- semantic refusals: samples


@pytest.mark.parametrize("loss_type", POLICY_LOSSES)
@pytest.mark.parametrize("missing", ["target_tokens", "logprobs", "advantages"])
def test_policy_losses_require_their_inputs(loss_type: str, missing: str) -> None:
    body = grpo_body()
    body["loss"] = {"type": loss_type, **NEEDED_PARAMS.get(loss_type, {})}
    body["samples"].append(sample(**policy_inputs()))
    del body["samples"][1]["loss_fn_inputs"][missing]
    assert_refused(body, f"samples[1].loss_fn_inputs.{missing}", f"is required by {loss_type}")


@pytest.mark.parametrize("missing", ["target_tokens", "weights"])
def test_cross_entropy_requires_its_inputs(missing: str) -> None:
    body = ce_body()
    del body["samples"][0]["loss_fn_inputs"][missing]
    assert_refused(
        body, f"samples[0].loss_fn_inputs.{missing}", "is required by LOSS_TYPE_CROSS_ENTROPY"
    )


def test_empty_loss_fn_inputs_name_every_input_the_loss_needs() -> None:
    """`{}` passes the schema (the API reference sends it); the refusal says what to send."""
    body = grpo_body()
    body["samples"][0]["loss_fn_inputs"] = {}
    error = assert_refused(
        body,
        "samples[0].loss_fn_inputs.target_tokens",
        "is required by LOSS_TYPE_GRPO; samples[0].loss_fn_inputs lacks target_tokens, "
        "logprobs and advantages",
    )
    assert "at least 1 property" not in error.message


def test_the_inputs_named_are_the_specs_for_every_loss() -> None:
    """The list comes from `LossConfig`'s `x-required-inputs`, read through the spec."""
    required = load_spec()["components"]["schemas"]["LossConfig"]["x-required-inputs"]
    for loss_type, keys in required.items():
        loss = {"type": loss_type, **NEEDED_PARAMS.get(loss_type, {})}
        body = {"samples": [sample()], "loss": loss}
        listed = ", ".join(keys[:-1]) + f" and {keys[-1]}"
        assert_refused(
            body,
            f"samples[0].loss_fn_inputs.{keys[0]}",
            f"samples[0].loss_fn_inputs lacks {listed}",
        )


def test_partial_loss_fn_inputs_name_only_the_missing_ones() -> None:
    body = grpo_body(grpo_params={"beta": 0.1})
    del body["samples"][0]["loss_fn_inputs"]["logprobs"]
    error = assert_refused(
        body,
        "samples[0].loss_fn_inputs.logprobs",
        "is required by LOSS_TYPE_GRPO; samples[0].loss_fn_inputs lacks logprobs and "
        "reference_logprobs (when loss.grpo_params.beta > 0)",
    )
    assert "target_tokens" not in error.message and "advantages" not in error.message


def test_one_missing_input_keeps_the_short_message() -> None:
    body = grpo_body()
    del body["samples"][0]["loss_fn_inputs"]["advantages"]
    error = assert_refused(body, "samples[0].loss_fn_inputs.advantages")
    assert error.message == "samples[0].loss_fn_inputs.advantages: is required by LOSS_TYPE_GRPO"


def test_grpo_beta_above_zero_requires_reference_logprobs() -> None:
    assert_refused(
        grpo_body(grpo_params={"beta": 0.1}),
        "samples[0].loss_fn_inputs.reference_logprobs",
        "required by LOSS_TYPE_GRPO when loss.grpo_params.beta > 0",
    )
    validate_forward_backward(grpo_body(grpo_params={"beta": 0.0}), VOCAB)


@pytest.mark.parametrize(
    ("key", "dtype", "expected"),
    [
        ("target_tokens", "float32", "'int64'"),
        ("logprobs", "int64", "'float32'"),
        ("advantages", "int64", "'float32'"),
        ("reference_logprobs", "int64", "'float32'"),
    ],
)
def test_dtype_per_key(key: str, dtype: str, expected: str) -> None:
    body = grpo_body()
    body["samples"][0]["loss_fn_inputs"][key] = tensor([1, 2, 3], dtype)
    assert_refused(body, f"samples[0].loss_fn_inputs.{key}.dtype", f"must have dtype {expected}")


@pytest.mark.parametrize("key", ["weights", "mask"])
@pytest.mark.parametrize("dtype", ["int64", "float32"])
def test_weights_and_mask_take_either_dtype(key: str, dtype: str) -> None:
    body = grpo_body()
    body["samples"][0]["loss_fn_inputs"][key] = tensor([1, 0, 1], dtype)
    request = validate_forward_backward(body, VOCAB)
    kept = request.samples[0].inputs[key]
    assert kept.dtype == np.float64 and kept.tolist() == [1.0, 0.0, 1.0]


def test_tensor_length_must_match_the_model_input() -> None:
    body = grpo_body()
    body["samples"].append(sample([1, 2, 3, 4, 5, 6], **policy_inputs(6)))
    body["samples"].append(sample([1, 2, 3, 4, 5, 6], **policy_inputs(6)))
    body["samples"][2]["loss_fn_inputs"]["advantages"] = tensor([0.0] * 5)
    assert_refused(
        body,
        "samples[2].loss_fn_inputs.advantages",
        "has 5 values but the sample's model input has 6 tokens",
    )


def test_unknown_keys_are_checked_like_any_tensor() -> None:
    body = grpo_body()
    body["samples"][0]["loss_fn_inputs"]["extra"] = tensor([1.0])
    assert_refused(body, "samples[0].loss_fn_inputs.extra", "has 1 values")


def test_shape_must_be_the_data_length() -> None:
    body = grpo_body()
    body["samples"][0]["loss_fn_inputs"]["advantages"]["shape"] = [1, 3]
    assert_refused(body, "samples[0].loss_fn_inputs.advantages.shape", "must be [3]")
    body["samples"][0]["loss_fn_inputs"]["advantages"]["shape"] = [4]
    assert_refused(body, "samples[0].loss_fn_inputs.advantages.shape", "got [4]")


@pytest.mark.parametrize("field", ["sparse_crow_indices", "sparse_col_indices"])
def test_sparse_fields_are_refused(field: str) -> None:
    body = grpo_body()
    body["samples"][0]["loss_fn_inputs"]["logprobs"][field] = [0, 1]
    assert_refused(
        body, f"samples[0].loss_fn_inputs.logprobs.{field}", "unsupported for training operations"
    )


def test_int64_tensors_hold_integers() -> None:
    body = grpo_body()
    body["samples"][0]["loss_fn_inputs"]["target_tokens"]["data"][1] = 2.5
    assert_refused(
        body,
        "samples[0].loss_fn_inputs.target_tokens",
        "int64 tensors hold integers, got 2.5 at data[1]",
    )


@pytest.mark.parametrize("value", [2.0**63, -(2.0**64), 2**63, -(2**63) - 1, 10**30])
def test_int64_tensors_stay_within_int64(value: float) -> None:
    body = grpo_body()
    body["samples"][0]["loss_fn_inputs"]["mask"] = tensor([1, value, 1], "int64")
    assert_refused(body, "samples[0].loss_fn_inputs.mask", "does not fit in int64 at data[1]")


@pytest.mark.parametrize("value", [1e39, -1e300, 10**40])
def test_float32_tensors_stay_within_float32(value: float) -> None:
    body = grpo_body()
    body["samples"][0]["loss_fn_inputs"]["logprobs"]["data"][2] = value
    assert_refused(body, "samples[0].loss_fn_inputs.logprobs", "does not fit in float32 at data[2]")


def test_numbers_beyond_a_double_are_refused() -> None:
    body = grpo_body()
    body["samples"][0]["loss_fn_inputs"]["advantages"]["data"][0] = 10**400
    assert_refused(
        body, "samples[0].loss_fn_inputs.advantages", "too large for a double at data[0]"
    )
    body = grpo_body()
    body["samples"][0]["loss_fn_inputs"]["mask"] = tensor([1, 1, -(10**400)], "int64")
    assert_refused(body, "samples[0].loss_fn_inputs.mask", "too large for a double at data[2]")


def test_weights_and_mask_are_mutually_exclusive() -> None:
    body = grpo_body()
    body["samples"][0]["loss_fn_inputs"]["weights"] = tensor([1, 1, 1], "int64")
    body["samples"][0]["loss_fn_inputs"]["mask"] = tensor([1, 1, 1], "int64")
    assert_refused(body, "samples[0].loss_fn_inputs", "mutually exclusive")


def test_weights_must_be_non_negative() -> None:
    body = ce_body()
    body["samples"][0]["loss_fn_inputs"]["weights"]["data"][2] = -0.5
    assert_refused(body, "samples[0].loss_fn_inputs.weights", "non-negative, got -0.5 at data[2]")


def test_a_negative_mask_is_only_a_nonzero_mask() -> None:
    """A mask only selects (m = 1[mask != 0]): -1 counts like 1, unlike a weight."""
    negative, positive = grpo_body(), grpo_body()
    negative["samples"][0]["loss_fn_inputs"]["mask"] = tensor([-1, 0, 1], "int64")
    positive["samples"][0]["loss_fn_inputs"]["mask"] = tensor([1, 0, 1], "int64")
    kept = validate_forward_backward(negative, VOCAB).samples[0].inputs
    assert kept["mask"].tolist() == [-1.0, 0.0, 1.0]
    logprobs = [np.array([-0.5, -1.5, -2.5])]
    with_negative = compute_loss(negative["loss"], logprobs, [kept])
    with_positive = compute_loss(
        positive["loss"], logprobs, [validate_forward_backward(positive, VOCAB).samples[0].inputs]
    )
    assert with_negative.masks[0].tolist() == [1.0, 0.0, 1.0]
    assert with_negative.loss == with_positive.loss != 0.0
    assert with_negative.dlogp[0].tolist() == with_positive.dlogp[0].tolist()


@pytest.mark.parametrize(
    ("chunks", "param", "value"),
    [
        ([[1, 2, VOCAB]], "chunks[0].encoded_text.tokens[2]", str(VOCAB)),
        ([[1], [2, str(VOCAB + 5)]], "chunks[1].encoded_text.tokens[1]", str(VOCAB + 5)),
        (
            [[1, 2], ["9999999999999999999"]],
            "chunks[1].encoded_text.tokens[0]",
            "9999999999999999999",
        ),
        ([[2**63 - 1, 1, 2]], "chunks[0].encoded_text.tokens[0]", str(2**63 - 1)),
    ],
)
def test_token_ids_must_be_inside_the_vocabulary(
    chunks: list[list[Any]], param: str, value: str
) -> None:
    body = grpo_body()
    body["samples"][0]["model_input"]["chunks"] = [{"encoded_text": {"tokens": c}} for c in chunks]
    assert_refused(
        body, f"samples[0].model_input.{param}", f"token id {value} is outside the vocabulary"
    )


def test_the_vocabulary_is_the_base_models() -> None:
    body = grpo_body()
    body["samples"][0]["model_input"]["chunks"][0]["encoded_text"]["tokens"] = [2000, 1, 2]
    refused(body, VOCAB)
    validate_forward_backward(body, QWEN_VOCAB)


@pytest.mark.parametrize("value", [VOCAB, -1])
def test_target_tokens_must_be_inside_the_vocabulary(value: int) -> None:
    body = grpo_body()
    body["samples"][0]["loss_fn_inputs"]["target_tokens"]["data"][2] = value
    assert_refused(
        body,
        "samples[0].loss_fn_inputs.target_tokens",
        "outside the vocabulary [0, 1024) at data[2]",
    )


# ------------------------------------------------------------------ nothing but ApiError 400


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*prefix, index))
    return found


_ODD_VALUES: list[Any] = [None, True, "x", "12", 1.5, -1, 0, 10**400, math.nan, {}, [], {"a": [1]}]


def _acceptable(path: tuple[Any, ...], value: Any) -> bool:
    """Whether `value` is a valid replacement at `path` of the body below, from the rules alone:
    a token id (int or decimal string) inside the vocabulary, an int64 entry of a tensor, a float
    entry, an empty grpo_params, a beta >= 0, a boolean flag."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    finite = number and abs(value) < 1e30 and math.isfinite(value)
    integral = finite and float(value).is_integer()
    if "tokens" in path and isinstance(path[-1], int):
        as_int = int(value) if isinstance(value, str) and value.isdigit() else value
        return isinstance(as_int, int) and not isinstance(as_int, bool) and 0 <= as_int < VOCAB
    if path[-2:-1] == ("data",) and "target_tokens" in path:
        return integral and 0 <= value < VOCAB
    if path[-2:-1] == ("data",) and "mask" in path:
        return bool(integral)
    if path[-2:-1] == ("data",):
        return bool(finite)
    if path == ("loss", "grpo_params"):
        return value == {}
    if path == ("loss", "grpo_params", "beta"):
        return bool(finite) and value >= 0
    if path == ("forward_only",):
        return isinstance(value, bool)
    return False


def test_any_odd_value_anywhere_is_refused_naming_it_unless_valid() -> None:
    base = grpo_body(grpo_params={"beta": 0.1, "agg_type": "GRPO_LOSS_AGGREGATION_TYPE_TOKEN_MEAN"})
    base["samples"][0]["loss_fn_inputs"]["reference_logprobs"] = tensor([-1.0, -1.0, -1.0])
    base["samples"][0]["loss_fn_inputs"]["mask"] = tensor([1, 1, 1], "int64", shape=[3])
    base["forward_only"] = False
    wrong: list[str] = []
    for path in _paths(base):
        for value in _ODD_VALUES:
            body = copy.deepcopy(base)
            parent = body
            for part in path[:-1]:
                parent = parent[part]
            parent[path[-1]] = value
            where = format_path(list(path))
            try:
                validate_forward_backward(body, VOCAB)
                accepted = True
            except ApiError as error:
                accepted = False
                # The error names the field, a field holding it, or one of its own fields.
                param, holder = error.param or "", format_path(list(path[:-1])) or ""
                names_it = bool(param) and (where.startswith(param) or param.startswith(holder))
                if error.status != 400 or not names_it:
                    wrong.append(f"{where} = {value!r}: {error.status} {error.param}")
            if accepted != _acceptable(path, value):
                wrong.append(f"{where} = {value!r}: {'accepted' if accepted else 'refused'}")
    assert wrong == []


# ------------------------------------------------------------------------------- parameters


def test_limit_is_coerced_and_bounded() -> None:
    assert validate_parameter("listTrainingSessions", "limit", "5") == 5
    assert validate_parameter("listTrainingSessions", "limit", ["100"]) == 100
    assert validate_parameter("listTrainingSessions", "limit", None) == 20  # the spec's default
    for raw, reason in [
        ("0", "less than the minimum of 1"),
        ("101", "greater than the maximum of 100"),
        ("abc", "expected an integer, got 'abc'"),
        ("1.5", "expected an integer"),
        ("", "expected an integer"),
        ("9" * 5000, "expected an integer"),
        (["1", "2"], "only once"),
    ]:
        with pytest.raises(ApiError) as caught:
            validate_parameter("listTrainingSessions", "limit", raw)
        assert caught.value.status == 400 and caught.value.param == "limit"
        assert reason in caught.value.message


def test_status_accepts_comma_separated_and_repeated_values() -> None:
    running, stopped = "TRAINING_SESSION_STATUS_RUNNING", "TRAINING_SESSION_STATUS_STOPPED"
    assert validate_parameter("listTrainingSessions", "status", f"{running},{stopped}") == [
        running,
        stopped,
    ]
    assert validate_parameter("listTrainingSessions", "status", [running, stopped]) == [
        running,
        stopped,
    ]
    assert validate_parameter("listTrainingSessions", "status", None) is None
    for empty in ("", [""], ["", ""]):  # an empty array: the spec's minItems refuses it
        with pytest.raises(ApiError) as caught:
            validate_parameter("listTrainingSessions", "status", empty)
        assert caught.value.param == "status"
        assert caught.value.message.startswith(
            "status: an empty value (status=) must have at least 1 item"
        )
        assert caught.value.message.endswith(EMULATOR_RULE_NOTE)  # x-source: emulator
    with pytest.raises(ApiError) as caught:
        validate_parameter("listTrainingSessions", "status", ",")  # two empty items
    assert "'' is not one of" in caught.value.message
    with pytest.raises(ApiError) as caught:
        validate_parameter("listTrainingSessions", "status", f"{running},RUNNING")
    assert caught.value.param == "status"
    assert "'RUNNING' is not one of" in caught.value.message


def test_after_is_a_plain_string() -> None:
    assert validate_parameter("listTrainingSessions", "after", "sess-1") == "sess-1"
    assert validate_parameter("listTrainingSessions", "after", None) is None


def test_idempotency_key_header() -> None:
    key = "550e8400-e29b-41d4-a716-446655440000"
    assert validate_parameter("forwardBackward", "Idempotency-Key", key) == key
    assert validate_parameter("forwardBackward", "idempotency-key", key) == key
    for raw, reason in [
        (None, "is required"),
        ("", "must not be empty"),
        ("a b", "does not match the pattern"),
        ("é", "does not match the pattern"),
        ("k" * 256, "at most 255 characters"),
    ]:
        with pytest.raises(ApiError) as caught:
            validate_parameter("forwardBackward", "Idempotency-Key", raw)
        assert caught.value.status == 400
        assert caught.value.param == "Idempotency-Key"
        assert reason in caught.value.message


def test_unknown_operation_or_parameter_is_a_programming_error() -> None:
    with pytest.raises(KeyError):
        validate_parameter("noSuchOperation", "limit", "1")
    with pytest.raises(KeyError):
        validate_parameter("listTrainingSessions", "nope", "1")


# ------------------------------------------------------------------------- example files


def _example_files(kind: str) -> list[Path]:
    return sorted((EXAMPLES / kind).glob("forward_backward.*.json"))


def _example_ids(files: list[Path]) -> list[str]:
    return [f.stem for f in files]


_INVALID = _example_files("invalid")
_VALID = _example_files("valid")


def test_the_example_files_are_there() -> None:
    """They ship with the repository: none found is a failure, never a skip."""
    assert _INVALID, f"no forward_backward.*.json under {EXAMPLES / 'invalid'}"
    assert _VALID, f"no forward_backward.*.json under {EXAMPLES / 'valid'}"


@pytest.mark.parametrize("path", _INVALID, ids=_example_ids(_INVALID))
def test_invalid_examples_are_refused_naming_their_param(path: Path) -> None:
    example = json.loads(path.read_text())
    error = refused(example["body"], VOCAB)
    assert error.param == example["param"], error.message
    schema_error: ApiError | None = None
    try:
        validate_schema("ForwardBackwardBody", example["body"])
    except ApiError as caught:
        schema_error = caught
    assert (schema_error is None) == bool(example["schema_valid"]), example["description"]


@pytest.mark.parametrize("path", _VALID, ids=_example_ids(_VALID))
def test_valid_examples_pass(path: Path) -> None:
    example = json.loads(path.read_text())
    body = example.get("body", example) if isinstance(example, dict) else example
    request = validate_forward_backward(body, VOCAB)
    own = PARAMS_KEYS[body["loss"]["type"]]
    assert request.loss == {k: v for k, v in body["loss"].items() if k in ("type", own)}
    assert len(request.samples) == len(body["samples"])
    for parsed, sent in zip(request.samples, body["samples"], strict=True):
        chunks = sent["model_input"]["chunks"]
        tokens = [int(t) for chunk in chunks for t in chunk["encoded_text"]["tokens"]]
        assert parsed.tokens.tolist() == tokens
        assert set(parsed.inputs) == set(sent["loss_fn_inputs"])


def test_spec_request_examples_pass() -> None:
    """The spec's own examples; a published one (`x-source: docs:...`) is replayed, with the
    docs' errors it has, by tests/spec/test_examples_published.py."""
    operation = load_spec()["paths"][
        "/rl/training-sessions/{session_id}/operations/forward-backward"
    ]
    examples = operation["post"]["requestBody"]["content"]["application/json"]["examples"]
    own = [example for example in examples.values() if "x-source" not in example]
    assert own
    for example in own:
        validate_forward_backward(example["value"], QWEN_VOCAB)
