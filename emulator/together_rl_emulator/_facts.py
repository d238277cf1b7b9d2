"""The API facts the emulator acts on, read once from the installed spec (`_spec.py`).

Enum values, defaults and bounds are never typed here: they change when `openapi.yaml` changes.
Code names the values it gives a meaning to by their suffix (`enum_value("OperationStatus",
"PENDING")`), so a value the spec drops fails at import instead of drifting. The proto zero
values (`*_UNSPECIFIED`) are never accepted as a choice.

Rules JSON Schema cannot say live once where they are used, with the spec's descriptions stating
them: the inputs each loss requires and the dtype of each `loss_fn_inputs` key (`_requests.py`),
the loss formulas (`_losses.py`, docs/losses.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._spec import enum_value, enum_values, schema

__all__ = [
    "ADAM_BOUNDS",
    "ADAM_DEFAULTS",
    "DTYPES",
    "ERR_INTERNAL",
    "ERR_INVALID_INPUT",
    "ERR_NON_FINITE",
    "ERR_SESSION_NOT_ACTIVE",
    "LOSS_PARAMS_REQUIRED",
    "LOSS_PARAM_DEFAULTS",
    "LOSS_TYPES",
    "MODEL_RESOURCES_READY",
    "OP_COMPLETED",
    "OP_FAILED",
    "OP_PENDING",
    "OP_RUNNING",
    "PARAMS_KEYS",
    "SESSION_RUNNING",
    "SESSION_STOPPED",
    "WEIGHT_SYNC_TYPES",
    "Bounds",
    "choices",
    "number_bounds",
    "spec_defaults",
]

_UNSPECIFIED = "_UNSPECIFIED"
#: The spec's keyword for a default the server applies but a client must not send for the user.
SERVER_DEFAULT = "x-server-default"


def choices(enum_name: str) -> tuple[str, ...]:
    """The values of an enum a client may choose: all but the proto zero value."""
    return tuple(v for v in enum_values(enum_name) if not v.endswith(_UNSPECIFIED))


# ------------------------------------------------------------------ statuses and error codes
OP_PENDING = enum_value("OperationStatus", "PENDING")
OP_RUNNING = enum_value("OperationStatus", "RUNNING")
OP_COMPLETED = enum_value("OperationStatus", "COMPLETED")
OP_FAILED = enum_value("OperationStatus", "FAILED")
SESSION_RUNNING = enum_value("SessionStatus", "RUNNING")
SESSION_STOPPED = enum_value("SessionStatus", "STOPPED")
MODEL_RESOURCES_READY = enum_value("ModelResourcesStatus", "READY")
ERR_SESSION_NOT_ACTIVE = enum_value("OperationErrorCode", "SESSION_NOT_ACTIVE")
ERR_NON_FINITE = enum_value("OperationErrorCode", "NON_FINITE_LOSS")
ERR_INTERNAL = enum_value("OperationErrorCode", "INTERNAL_ERROR")
ERR_INVALID_INPUT = enum_value("OperationErrorCode", "INVALID_INPUT")

# ------------------------------------------------------------------ tensors and operations
DTYPES: tuple[str, ...] = enum_values("DType")
WEIGHT_SYNC_TYPES: tuple[str, ...] = choices("WeightSyncType")


# ------------------------------------------------------------------ bounds
@dataclass(frozen=True)
class Bounds:
    """A number's `minimum`/`exclusiveMinimum` and `maximum`/`exclusiveMaximum` in the spec."""

    low: float | None = None
    low_excluded: bool = False
    high: float | None = None
    high_excluded: bool = False

    def violation(self, value: float) -> str | None:
        """Why `value` is out of bounds (`must be >= 0.0`), or None when it is inside."""
        if self.low is not None and (value < self.low or (self.low_excluded and value == self.low)):
            return f"must be {'>' if self.low_excluded else '>='} {self.low}"
        if self.high is not None and (
            value > self.high or (self.high_excluded and value == self.high)
        ):
            return f"must be {'<' if self.high_excluded else '<='} {self.high}"
        return None


def number_bounds(node: dict[str, Any]) -> Bounds:
    """The bounds a (resolved) number schema declares, as floats."""

    def first(*keys: str) -> tuple[float | None, bool]:
        for index, key in enumerate(keys):
            if key in node:
                return float(node[key]), index == 0
        return None, False

    low, low_excluded = first("exclusiveMinimum", "minimum")
    high, high_excluded = first("exclusiveMaximum", "maximum")
    return Bounds(low, low_excluded, high, high_excluded)


def _property_bounds(schema_name: str) -> dict[str, Bounds]:
    properties: dict[str, Any] = schema(schema_name).get("properties", {})
    return {name: number_bounds(node) for name, node in properties.items()}


# Per `AdamParams` field (every field of the schema is a bounded number).
ADAM_BOUNDS: dict[str, Bounds] = _property_bounds("AdamParams")


# ------------------------------------------------------------------ losses
LOSS_TYPES: tuple[str, ...] = choices("LossType")


def _params_keys() -> dict[str, str | None]:
    """Loss type -> the `LossConfig` property holding its params: `LOSS_TYPE_PPO` ->
    `ppo_params`, or None for a type whose params object the spec does not declare."""
    prefix = enum_value("LossType", "UNSPECIFIED").removesuffix("UNSPECIFIED")  # LOSS_TYPE_
    declared = schema("LossConfig")["properties"]
    keys: dict[str, str | None] = {}
    for loss_type in LOSS_TYPES:
        key = loss_type.removeprefix(prefix).lower() + "_params"
        keys[loss_type] = key if key in declared else None
    return keys


PARAMS_KEYS: dict[str, str | None] = _params_keys()


def _default(node: dict[str, Any]) -> tuple[bool, Any]:
    """A node's `default`, else its `x-server-default` (the server's default that the spec
    keeps from generated clients: see the spec's info), else its `$ref` target's."""
    for keyword in ("default", SERVER_DEFAULT):
        if keyword in node:
            return True, node[keyword]
    if "$ref" in node:
        return _default(schema(node["$ref"].rsplit("/", 1)[-1]))
    return False, None


def spec_defaults(schema_name_or_node: str | dict[str, Any]) -> dict[str, Any]:
    """The default of each property of an object schema that declares one (`default` or
    `x-server-default`, on the property or on the schema it refers to)."""
    node = (
        schema(schema_name_or_node) if isinstance(schema_name_or_node, str) else schema_name_or_node
    )
    out: dict[str, Any] = {}
    for name, prop in node.get("properties", {}).items():
        found, value = _default(prop)
        if found:
            out[name] = value
    return out


def _params_schema(params_key: str) -> dict[str, Any]:
    node = schema("LossConfig")["properties"][params_key]
    return schema(node["$ref"].rsplit("/", 1)[-1]) if "$ref" in node else dict(node)


def _loss_param_defaults() -> dict[str, dict[str, float | str]]:
    out: dict[str, dict[str, float | str]] = {}
    for key in PARAMS_KEYS.values():
        if key is not None:
            out[key] = spec_defaults(_params_schema(key))
    return out


# Per params key: every param that has a default, with it (absent: no default, e.g. DRO's beta).
LOSS_PARAM_DEFAULTS: dict[str, dict[str, float | str]] = _loss_param_defaults()
# Per params key: the params the spec requires (a loss whose params require one needs the object).
LOSS_PARAMS_REQUIRED: dict[str, tuple[str, ...]] = {
    key: tuple(_params_schema(key).get("required", ()))
    for key in PARAMS_KEYS.values()
    if key is not None
}


# Per `AdamParams` field, the value an optimizer step uses when the request leaves it out.
ADAM_DEFAULTS: dict[str, float] = {k: float(v) for k, v in spec_defaults("AdamParams").items()}
