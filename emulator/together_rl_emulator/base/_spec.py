"""The one module that reads the installed spec for the emulator: its bytes (served at
`GET /openapi.yaml`), its parsed form, and every fact the emulator acts on.

The emulator never reads `spec/` from the working directory: what it serves and validates with is
the installed tree's one copy (`together_rl_spec.spec_bytes`). Enum values, defaults, bounds, the
loss-input rules JSON Schema cannot state (the spec's `x-` keywords) and where each rule comes from
(`x-source`) are read here once, at import; nothing else in the package types them again. Code
names the values it gives a meaning to by their suffix (`enum_value("OperationStatus",
"PENDING")`), so a value the spec drops fails at import instead of drifting. The proto zero
values (`*_UNSPECIFIED`) are never accepted as a choice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import together_rl_spec
from together_rl_spec import spec_bytes, spec_document

__all__ = [
    "ADAM_BOUNDS",
    "ADAM_DEFAULTS",
    "DTYPES",
    "EMULATOR_RULE_NOTE",
    "EMULATOR_SOURCE",
    "ERR_INTERNAL",
    "ERR_INVALID_INPUT",
    "ERR_NON_FINITE",
    "ERR_SESSION_NOT_ACTIVE",
    "GPU_TYPES",
    "LOSS_INPUTS",
    "LOSS_PARAMS_REQUIRED",
    "LOSS_PARAM_DEFAULTS",
    "LOSS_TYPES",
    "MODEL_RESOURCES_READY",
    "MUON_BOUNDS",
    "MUON_DEFAULTS",
    "OP_COMPLETED",
    "OP_FAILED",
    "OP_PENDING",
    "OP_RUNNING",
    "PARAMS_KEYS",
    "SESSION_RUNNING",
    "SESSION_STOPPED",
    "WEIGHT_SYNC_TYPES",
    "Bounds",
    "KindOperations",
    "LossInputRules",
    "choices",
    "emulator_rule",
    "enum_value",
    "enum_values",
    "find_operation",
    "kind_operations",
    "load_spec",
    "node_at",
    "number_bounds",
    "operation_rule_sources",
    "params_schema",
    "resolve_ref",
    "rule_source",
    "schema",
    "spec_bytes",
    "spec_defaults",
]


# ------------------------------------------------------------------ reading the file
def load_spec() -> dict[str, Any]:
    """The parsed spec (parsed once, by `together_rl_spec`). Shared: callers must not mutate it."""
    return spec_document()


# Read through `together_rl_spec`, on `load_spec()` (one seam, which tests may replace).
def find_operation(operation_id: str) -> tuple[str, str, dict[str, Any]]:
    """`(path, method, operation)` of the operation with this `operationId`; KeyError if none."""
    return together_rl_spec.find_operation(operation_id, load_spec())


def resolve_ref(node: dict[str, Any]) -> dict[str, Any]:
    """Follow a local `$ref` chain to the node it names."""
    return together_rl_spec.resolve_ref(node, load_spec())


def schema(name: str) -> dict[str, Any]:
    """`#/components/schemas/<name>`, `$ref`s followed; KeyError if the spec has none."""
    return together_rl_spec.schema(name, load_spec())


def enum_values(name: str) -> tuple[str, ...]:
    """The values of the enum schema `name`, in the spec's order."""
    return together_rl_spec.enum_values(name, load_spec())


def enum_value(name: str, suffix: str) -> str:
    """The one value of enum `name` ending in `_<suffix>`; KeyError if not exactly one."""
    return together_rl_spec.enum_value(name, suffix, load_spec())


def node_at(root: Any, path: list[str | int]) -> Any:
    """The node at `path` under `root` (a JSON Schema location); KeyError/IndexError if none."""
    node = root
    for part in path:
        node = node[part]
    return node


def choices(enum_name: str) -> tuple[str, ...]:
    """The values of an enum a client may choose: all but the proto zero value."""
    return together_rl_spec.choices(enum_name, load_spec())


# ------------------------------------------------------------------ where a rule comes from
EMULATOR_SOURCE = "emulator"
#: Appended to the message of a refusal whose rule has `x-source: emulator`.
EMULATOR_RULE_NOTE = " (a rule of this emulator; the live API may differ)"


def rule_source(node: Mapping[str, Any], keyword: str) -> str | None:
    """The `x-source` of `keyword` on `node` (a schema, parameter or `x-rules` entry): the one
    string of the object, or its mapping's entry for `keyword`; None when it states none."""
    source = node.get("x-source")
    if isinstance(source, Mapping):
        source = source.get(keyword)
    return source if isinstance(source, str) else None


def emulator_rule(node: Mapping[str, Any], keyword: str) -> bool:
    """Whether `keyword` on `node` is this project's own choice (`x-source: emulator`)."""
    return rule_source(node, keyword) == EMULATOR_SOURCE


def operation_rule_sources(operation_id: str, status: int) -> set[str | None]:
    """The sources of the operation's `x-rules` entries answered with `status` (None for an
    entry without `x-source`); empty when no entry states that status."""
    try:
        _, _, operation = find_operation(operation_id)
    except KeyError:
        return set()
    rules = operation.get("x-rules", [])
    return {
        rule_source(rule, "rule")
        for rule in rules if isinstance(rules, list) and isinstance(rule, Mapping)
        if str(rule.get("status", "")) == str(status)
    }  # fmt: skip


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

DTYPES: tuple[str, ...] = enum_values("DType")
WEIGHT_SYNC_TYPES: tuple[str, ...] = choices("WeightSyncType")
#: The GPU types a client may ask for (the first is the emulator's default and only offer).
GPU_TYPES: tuple[str, ...] = enum_values("GpuType")


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


# Per `AdamParams` field (every field of the schema is a bounded number).
ADAM_BOUNDS: dict[str, Bounds] = {
    name: number_bounds(node) for name, node in schema("AdamParams")["properties"].items()
}


# ------------------------------------------------------------------ defaults
def spec_defaults(schema_name_or_node: str | dict[str, Any]) -> dict[str, Any]:
    """The default of each property of an object schema that declares one (`default` or
    `x-server-default`, on the property or on the schema it refers to)."""
    return together_rl_spec.defaults(schema_name_or_node, load_spec())


# Per `AdamParams` field, the value an optimizer step uses when the request leaves it out.
ADAM_DEFAULTS: dict[str, float] = {k: float(v) for k, v in spec_defaults("AdamParams").items()}

# Per number field of `MuonParams` (all but `adam`), its bounds and the value a step uses when
# the request leaves it out (`newton_schulz_steps` an int, the others floats).
MUON_BOUNDS: dict[str, Bounds] = {
    name: number_bounds(node)
    for name, node in schema("MuonParams")["properties"].items()
    if name != "adam"
}
MUON_DEFAULTS: dict[str, float | int] = dict(spec_defaults("MuonParams"))


# ------------------------------------------------------------------ losses
LOSS_TYPES: tuple[str, ...] = together_rl_spec.loss_types(load_spec())
#: Loss type -> the `LossConfig` property holding its params (None: the spec declares none).
PARAMS_KEYS: dict[str, str | None] = together_rl_spec.params_keys(load_spec())


def params_schema(params_key: str) -> dict[str, Any]:
    """The (resolved) schema of one params object of `LossConfig` (`grpo_params`, ...)."""
    return resolve_ref(schema("LossConfig")["properties"][params_key])


# Per params key: every param that has a default, with it (absent: no default, e.g. DRO's beta).
LOSS_PARAM_DEFAULTS: dict[str, dict[str, float | str]] = {
    key: spec_defaults(params_schema(key)) for key in PARAMS_KEYS.values() if key is not None
}
# Per params key: the params the spec requires (a loss whose params require one needs the object).
LOSS_PARAMS_REQUIRED: dict[str, tuple[str, ...]] = {
    key: tuple(params_schema(key).get("required", ()))
    for key in PARAMS_KEYS.values()
    if key is not None
}


@dataclass(frozen=True)
class LossInputRules:
    """The `loss_fn_inputs` rules JSON Schema cannot state, as the spec's `x-` keywords say them
    (`LossFnInputs`, `LossConfig` and the params schemas)."""

    #: `x-input-dtypes`: key -> the dtypes it may have (unknown keys: any of `DType`).
    dtypes: dict[str, tuple[str, ...]]
    #: `x-exclusive-inputs`: groups of keys of which one sample sends at most one.
    exclusive: tuple[tuple[str, ...], ...]
    #: `x-required-inputs`: loss type -> the keys every sample must send.
    required: dict[str, tuple[str, ...]]
    #: `x-requires-inputs-when-positive`: params key -> param -> keys required when it is > 0.
    required_when_positive: dict[str, dict[str, tuple[str, ...]]]
    #: The schema objects holding those keywords (for their `x-source`).
    inputs_schema: dict[str, Any]
    loss_config_schema: dict[str, Any]


def _loss_input_rules() -> LossInputRules:
    inputs = schema("LossFnInputs")
    loss_config = schema("LossConfig")
    length = inputs.get("x-tensor-length")
    if length != "model_input":
        raise RuntimeError(
            f"LossFnInputs x-tensor-length is {length!r}; the emulator implements only"
            " 'model_input' (every tensor as long as the sample's tokens)"
        )
    required = {t: tuple(keys) for t, keys in loss_config.get("x-required-inputs", {}).items()}
    missing = [t for t in LOSS_TYPES if "target_tokens" not in required.get(t, ())]
    if missing:
        # Every loss of the emulator's math is computed on the target tokens.
        raise RuntimeError(f"LossConfig x-required-inputs lacks target_tokens for {missing}")
    when_positive: dict[str, dict[str, tuple[str, ...]]] = {}
    for key in PARAMS_KEYS.values():
        if key is None:
            continue
        for name, node in params_schema(key).get("properties", {}).items():
            keys = node.get("x-requires-inputs-when-positive")
            if keys:
                when_positive.setdefault(key, {})[name] = tuple(keys)
    return LossInputRules(
        dtypes={k: tuple(v) for k, v in inputs.get("x-input-dtypes", {}).items()},
        exclusive=tuple(tuple(group) for group in inputs.get("x-exclusive-inputs", ())),
        required=required,
        required_when_positive=when_positive,
        inputs_schema=inputs,
        loss_config_schema=loss_config,
    )


LOSS_INPUTS: LossInputRules = _loss_input_rules()


# ------------------------------------------------------------------ operation kinds
@dataclass(frozen=True)
class KindOperations:
    """What the spec says of one operation kind (`.../operations/<name>`)."""

    submit_operation_id: str
    get_operation_id: str
    has_body: bool
    uploadable: bool  # the body may stand for an uploaded one (`payload_id` in its schema)


def kind_operations(name: str) -> KindOperations:
    """The POST whose path ends in the kind's segment and the GET one parameter below it."""
    paths: dict[str, Any] = load_spec()["paths"]
    for submit_path, item in paths.items():
        if submit_path.rsplit("/", 1)[-1] == name and isinstance(item.get("post"), dict):
            submit: dict[str, Any] = item["post"]
            break
    else:
        raise KeyError(f"the spec has no POST .../{name}")
    for path, item in paths.items():
        rest = path.removeprefix(submit_path + "/")
        if rest != path and rest.startswith("{") and "/" not in rest and "get" in item:
            get_id: str = item["get"]["operationId"]
            break
    else:
        raise KeyError(f"the spec has no GET {submit_path}/{{operation id}}")
    properties: dict[str, Any] = {}
    if "requestBody" in submit:
        body = resolve_ref(submit["requestBody"])
        properties = resolve_ref(body["content"]["application/json"]["schema"]).get(
            "properties", {}
        )
    return KindOperations(
        submit_operation_id=submit["operationId"],
        get_operation_id=get_id,
        has_body="requestBody" in submit,
        uploadable="payload_id" in properties,
    )
