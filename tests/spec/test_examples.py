"""`spec/examples/`: every valid body passes its schema; every invalid one is refused by JSON
Schema for the reason its name says, or (semantic rules) passes JSON Schema and is left to the
server's 400."""

from __future__ import annotations

import re

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
    valid_examples,
)

VALID = valid_examples()
INVALID = invalid_examples()
SCHEMA_INVALID = [example for example in INVALID if not example.schema_valid]
SEMANTIC = [example for example in INVALID if example.schema_valid]

LOSS_TYPES = [
    "LOSS_TYPE_CROSS_ENTROPY",
    "LOSS_TYPE_GRPO",
    "LOSS_TYPE_IMPORTANCE_SAMPLING",
    "LOSS_TYPE_PPO",
    "LOSS_TYPE_CISPO",
    "LOSS_TYPE_DRO",
    "LOSS_TYPE_DPPO",
]
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


def test_every_request_schema_has_valid_and_invalid_examples() -> None:
    assert {e.schema for e in VALID} == set(EXAMPLE_SCHEMAS.values())
    assert {e.schema for e in SCHEMA_INVALID} == set(EXAMPLE_SCHEMAS.values())


def test_invalid_examples_have_the_documented_fields() -> None:
    for example in INVALID:
        assert example.description.strip(), example.path.name
        assert example.param, example.path.name
        # `keyword`: the JSON Schema rule refusing a schema-invalid body; semantic ones have none.
        assert (example.keyword is None) == example.schema_valid, example.path.name


def test_valid_examples_cover_every_loss_type_and_grpo_mode() -> None:
    bodies = [e.body for e in VALID if e.schema == "ForwardBackwardBody"]
    assert {b["loss"]["type"] for b in bodies} == set(LOSS_TYPES)
    grpo = [
        b["loss"].get("grpo_params", {}) for b in bodies if b["loss"]["type"] == "LOSS_TYPE_GRPO"
    ]
    modes = {(p.get("agg_type"), p.get("ratio_type")) for p in grpo}
    for agg in ("UNSPECIFIED", "FIXED_HORIZON", "TOKEN_MEAN", "SEQUENCE_MEAN"):
        for ratio in ("TOKEN", "SEQUENCE"):
            assert (f"GRPO_LOSS_AGGREGATION_TYPE_{agg}", f"GRPO_LOSS_RATIO_TYPE_{ratio}") in modes
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


def test_valid_examples_fit_the_emulator_tiny_model() -> None:
    """Token ids and targets stay under 1,024 so the emulator's `emulator/tiny-1k` accepts them,
    and every tensor has one slot per input token."""
    for example in VALID:
        if example.schema != "ForwardBackwardBody":
            continue
        for index, sample in enumerate(example.body["samples"]):
            tokens = [
                int(t) for c in sample["model_input"]["chunks"] for t in c["encoded_text"]["tokens"]
            ]
            assert all(0 <= t < EMULATOR_TINY_VOCAB for t in tokens), (example.path.name, index)
            targets = sample["loss_fn_inputs"]["target_tokens"]["data"]
            assert all(0 <= t < EMULATOR_TINY_VOCAB for t in targets), (example.path.name, index)
            for key, tensor in sample["loss_fn_inputs"].items():
                assert len(tensor["data"]) == len(tokens), (example.path.name, index, key)
