"""`spec/examples/`: every valid body passes its schema; every invalid one is refused by JSON
Schema for the reason its name says, or (semantic rules) passes JSON Schema and is left to the
server's 400."""

from __future__ import annotations

import re
from typing import Any

import pytest
from _spec_schema import (
    EXAMPLE_SCHEMAS,
    INVALID_EXAMPLES_DIR,
    VALID_EXAMPLES_DIR,
    InvalidExample,
    ValidExample,
    component_validator,
    error_params,
    invalid_examples,
    iter_leaf_errors,
    load_spec,
    operations,
    valid_examples,
)

VALID = valid_examples()
INVALID = invalid_examples()
SCHEMA_INVALID = [example for example in INVALID if not example.schema_valid]
SEMANTIC = [example for example in INVALID if example.schema_valid]


def _spec_enum(name: str) -> list[str]:
    values: list[str] = load_spec()["components"]["schemas"][name]["enum"]
    return values


#: Every loss type a client may send (the proto zero value is refused).
LOSS_TYPES = [t for t in _spec_enum("LossType") if not t.endswith("_UNSPECIFIED")]
EMULATOR_TINY_VOCAB = 1024


def _ids(examples: list[ValidExample] | list[InvalidExample]) -> list[str]:
    return [example.path.name.removesuffix(".json") for example in examples]


def _format_errors(example: ValidExample | InvalidExample) -> str:
    errors = component_validator(example.schema).iter_errors(example.body)
    return "\n".join(f"  {list(e.absolute_path)}: {e.message[:200]}" for e in errors)


@pytest.mark.parametrize("example", VALID, ids=_ids(VALID))
def test_valid_example_passes_its_schema(example: ValidExample) -> None:
    assert component_validator(example.schema).is_valid(example.body), (
        f"{example.path.name} breaks {example.schema}:\n{_format_errors(example)}"
    )


@pytest.mark.parametrize("example", SEMANTIC, ids=_ids(SEMANTIC))
def test_semantic_invalid_example_passes_json_schema(example: InvalidExample) -> None:
    """These break a rule only the server can check; the schema itself must accept them."""
    assert component_validator(example.schema).is_valid(example.body), (
        f"{example.path.name} is marked schema_valid but breaks {example.schema}:\n"
        f"{_format_errors(example)}"
    )


@pytest.mark.parametrize("example", SCHEMA_INVALID, ids=_ids(SCHEMA_INVALID))
def test_schema_invalid_example_fails_at_its_param(example: InvalidExample) -> None:
    validator = component_validator(example.schema)
    errors = list(iter_leaf_errors(validator.iter_errors(example.body)))
    assert errors, f"{example.path.name} is accepted by {example.schema}"
    found = [(e.validator, param) for e in errors for param in error_params(e)]
    assert (example.keyword, example.param) in found, (
        f"{example.path.name}: expected a {example.keyword!r} error at {example.param!r}, "
        f"got {found}"
    )


def test_every_example_file_is_named_schema_dot_rule() -> None:
    names = [p.name for p in [*VALID_EXAMPLES_DIR.iterdir(), *INVALID_EXAMPLES_DIR.iterdir()]]
    bad = [n for n in names if not re.fullmatch(r"[a-z_]+\.[a-z0-9_]+\.json", n)]
    assert not bad, f"example files not named <schema>.<rule>.json: {bad}"
    prefixes = {n.split(".")[0] for n in names}
    assert prefixes <= set(EXAMPLE_SCHEMAS), prefixes - set(EXAMPLE_SCHEMAS)


def _request_body_schemas() -> set[str]:
    """The component schema of every request body in the spec."""
    names = set()
    for operation in operations():
        schema = operation.request_body_schema()
        if schema is not None:
            names.add(schema["$ref"].rsplit("/", 1)[-1])
    return names


def test_every_request_schema_has_valid_and_invalid_examples() -> None:
    assert set(EXAMPLE_SCHEMAS.values()) == _request_body_schemas()
    assert {e.schema for e in VALID} == set(EXAMPLE_SCHEMAS.values())
    assert {e.schema for e in SCHEMA_INVALID} == set(EXAMPLE_SCHEMAS.values())


def test_every_operation_with_semantic_rules_has_semantic_examples() -> None:
    """`WeightsSyncBody` (an enum, said by the schema), `SessionCreate`, `SessionUpdate` and
    `ModelResourcesExtendExpiry` have no rule beyond JSON Schema that a body alone can break."""
    assert {e.schema for e in SEMANTIC} == set(EXAMPLE_SCHEMAS.values()) - {
        "WeightsSyncBody",
        "SessionCreate",
        "SessionUpdate",
        "ModelResourcesExtendExpiry",
    }


def test_invalid_examples_have_the_documented_fields() -> None:
    for example in INVALID:
        assert example.description.strip(), example.path.name
        assert example.param, example.path.name
        # `keyword`: the JSON Schema rule refusing a schema-invalid body; semantic ones have none.
        assert (example.keyword is None) == example.schema_valid, example.path.name
        # Only a semantic rule can be the emulator's own.
        assert not example.emulator_only or example.schema_valid, example.path.name


def test_valid_examples_cover_every_loss_type_and_grpo_mode() -> None:
    bodies = [e.body for e in VALID if e.schema == "ForwardBackwardBody"]
    assert {b["loss"]["type"] for b in bodies} == set(LOSS_TYPES)
    grpo = [
        b["loss"].get("grpo_params", {}) for b in bodies if b["loss"]["type"] == "LOSS_TYPE_GRPO"
    ]
    modes = {(p.get("agg_type"), p.get("ratio_type")) for p in grpo}
    for agg in _spec_enum("GRPOLossAggregationType"):
        for ratio in _spec_enum("GRPOLossRatioType"):
            assert (agg, ratio) in modes
    assert any(p.get("beta", 0) > 0 for p in grpo)
    assert any(
        b.get("forward_only") is True and b.get("return_loss_fn_outputs") is True for b in bodies
    )
    assert any(b.get("forward_only") is True and "return_loss_fn_outputs" not in b for b in bodies)
    assert any(b.get("return_loss_fn_outputs") is True and "forward_only" not in b for b in bodies)
    samples = [s for b in bodies for s in b["samples"]]
    assert any(len(s["model_input"]["chunks"]) > 1 for s in samples)
    assert any(
        isinstance(tok, str)
        for s in samples
        for c in s["model_input"]["chunks"]
        for tok in c["encoded_text"]["tokens"]
    )
    assert any("mask" in s["loss_fn_inputs"] for s in samples)
    assert any("weights" in s["loss_fn_inputs"] for s in samples)


def _tokens(model_input: dict[str, Any]) -> list[int]:
    return [int(t) for c in model_input["chunks"] for t in c["encoded_text"]["tokens"]]


def test_valid_examples_fit_the_emulator_tiny_model() -> None:
    """Token ids, targets and stop ids stay under 1,024 so the emulator's `emulator/tiny-1k`
    accepts them, and every tensor and gradient has one slot per input token."""
    for example in VALID:
        name = example.path.name
        if example.schema == "SampleBody":
            for model_input in example.body["model_inputs"]:
                assert all(0 <= t < EMULATOR_TINY_VOCAB for t in _tokens(model_input)), name
            stops = example.body.get("sampling_params", {}).get("stop", [])
            assert all(0 <= int(s) < EMULATOR_TINY_VOCAB for s in stops), name
        if example.schema not in ("ForwardBackwardBody", "CustomForwardBackwardBody"):
            continue
        for index, sample in enumerate(example.body["samples"]):
            tokens = _tokens(sample["model_input"])
            assert all(0 <= t < EMULATOR_TINY_VOCAB for t in tokens), (name, index)
            targets = sample["loss_fn_inputs"]["target_tokens"]["data"]
            assert all(0 <= t < EMULATOR_TINY_VOCAB for t in targets), (name, index)
            for key, tensor in sample["loss_fn_inputs"].items():
                assert len(tensor["data"]) == len(tokens), (name, index, key)
            if example.schema == "CustomForwardBackwardBody":
                gradient = example.body["gradients"][index]["data"]
                assert len(gradient) == len(tokens), (name, index, "gradient")


def _schema_enum(name: str) -> set[str]:
    return set(load_spec()["components"]["schemas"][name]["enum"])


def _schema_properties(name: str) -> set[str]:
    return set(load_spec()["components"]["schemas"][name]["properties"])


def _bodies(schema: str) -> list[Any]:
    return [e.body for e in VALID if e.schema == schema]


def test_valid_optim_step_examples_cover_every_adam_field() -> None:
    bodies = _bodies("OptimStepBody")
    assert {} in bodies  # the session defaults
    adam = [b["adam_params"] for b in bodies if "adam_params" in b]
    assert set().union(*adam) == _schema_properties("AdamParams")
    assert any(set(a) == _schema_properties("AdamParams") for a in adam)  # all at once
    assert any(a.get("grad_clip_norm") == 0 for a in adam)  # clipping disabled
    # Muon bodies need resources created with optimizer_config.muon; the examples run on AdamW.
    assert not any("muon_params" in b for b in bodies)


def test_valid_sample_examples_cover_every_sampling_field() -> None:
    bodies = _bodies("SampleBody")
    assert set().union(*bodies) == _schema_properties("SampleBody") - {"payload_id"}
    params = [b["sampling_params"] for b in bodies if "sampling_params" in b]
    assert set().union(*params) == _schema_properties("SamplingParams")
    assert any(b.get("prompt_logprobs") is True and b.get("topk_prompt_logprobs") for b in bodies)
    assert any(b.get("topk_prompt_logprobs") == 20 for b in bodies)  # the maximum
    assert any(b.get("num_samples", 1) > 1 for b in bodies)
    assert any(len(b["model_inputs"]) > 1 for b in bodies)
    assert any(isinstance(p.get("seed"), str) for p in params)
    assert any(p.get("temperature") == 0 for p in params)


def test_valid_weights_sync_examples_cover_every_sync_type() -> None:
    types = {b["weight_sync_type"] for b in _bodies("WeightsSyncBody")}
    assert types == _schema_enum("WeightSyncType")


def test_valid_custom_forward_backward_examples_cover_weights_mask_and_dtypes() -> None:
    bodies = _bodies("CustomForwardBackwardBody")
    inputs = [set(s["loss_fn_inputs"]) for b in bodies for s in b["samples"]]
    assert {"target_tokens"} in inputs
    assert {"target_tokens", "weights"} in inputs
    assert {"target_tokens", "mask"} in inputs
    gradients = [g for b in bodies for g in b["gradients"]]
    # D_TYPE_INT64 is in the SDK's enum but means nothing for a gradient: not exemplified.
    dtypes = {g["dtype"] for g in gradients if "dtype" in g}
    assert dtypes == _schema_enum("GradientDType") - {"D_TYPE_INT64"}
    assert any("dtype" not in g for g in gradients)
    assert any(len(b["samples"]) > 1 for b in bodies)
