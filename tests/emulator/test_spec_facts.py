"""The facts the emulator acts on come from its installed spec, not from hand-typed copies."""

from __future__ import annotations

from typing import Any

from together_rl_emulator.base import _spec
from together_rl_emulator.base._spec import load_spec, schema
from together_rl_emulator.service import _kinds


def test_loss_types_and_params_keys_follow_the_spec() -> None:
    loss_types = [v for v in schema("LossType")["enum"] if not v.endswith("_UNSPECIFIED")]
    assert list(_spec.LOSS_TYPES) == loss_types
    declared = set(schema("LossConfig")["properties"]) - {"type"}
    assert {k for k in _spec.PARAMS_KEYS.values() if k is not None} == declared
    assert _spec.PARAMS_KEYS["LOSS_TYPE_IMPORTANCE_SAMPLING"] is None


def test_loss_defaults_come_from_the_spec() -> None:
    for key, defaults in _spec.LOSS_PARAM_DEFAULTS.items():
        ref = schema("LossConfig")["properties"][key]["$ref"].rsplit("/", 1)[-1]
        stated = _spec.spec_defaults(ref)
        for name, value in stated.items():
            assert defaults[name] == value, f"{key}.{name}"
        assert set(defaults) == set(stated), f"{key}: a default not stated in the spec"
    assert _spec.LOSS_PARAM_DEFAULTS["dppo_params"] == {"delta_low": 0.15, "delta_high": 0.15}
    # `x-server-default`, on a property or on the enum schema it refers to.
    assert _spec.LOSS_PARAM_DEFAULTS["grpo_params"] == {
        "clip_low_threshold": 0.8,
        "clip_high_threshold": 1.28,
        "beta": 0,
        "agg_type": "GRPO_LOSS_AGGREGATION_TYPE_FIXED_HORIZON",
        "ratio_type": "GRPO_LOSS_RATIO_TYPE_TOKEN",
    }
    assert "beta" not in _spec.LOSS_PARAM_DEFAULTS["dro_params"]
    assert _spec.LOSS_PARAMS_REQUIRED["dro_params"] == ("beta",)


def test_adam_defaults_are_the_spec_server_defaults() -> None:
    properties: dict[str, Any] = schema("AdamParams")["properties"]
    assert {k: p["x-server-default"] for k, p in properties.items()} == _spec.ADAM_DEFAULTS
    assert _spec.ADAM_DEFAULTS["learning_rate"] == 1e-4


def test_adam_bounds_are_the_spec_keywords() -> None:
    properties: dict[str, Any] = schema("AdamParams")["properties"]
    assert set(_spec.ADAM_BOUNDS) == set(properties)
    beta1 = _spec.ADAM_BOUNDS["beta1"]
    assert beta1.violation(1.0) == "must be < 1.0" and beta1.violation(0.999) is None
    assert _spec.ADAM_BOUNDS["eps"].violation(0.0) == "must be > 0.0"


def test_every_operation_path_of_the_spec_is_a_registered_kind() -> None:
    operation_ids = {
        operation["operationId"]
        for item in load_spec()["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict)
    }
    served = {k.submit_operation_id for k in _kinds.KINDS.values()} | {
        k.get_operation_id for k in _kinds.KINDS.values()
    }
    assert served <= operation_ids
    for path in load_spec()["paths"]:
        if "/operations/" in path:
            assert path.split("/operations/", 1)[1].split("/", 1)[0] in _kinds.KINDS, path
