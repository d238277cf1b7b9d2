"""Request validation: the spec's JSON Schemas first, then the rules the schema cannot express.

Every refusal is an `ApiError` 400 (`invalid(param, reason)`) whose `param` is the wire path of the
offending field, e.g. `samples[2].loss_fn_inputs.advantages.dtype`, and whose reason says what to
change. Nothing here raises anything else for anything a client can send: absurd nesting, numbers
too large for a double or an int64, NaN/Infinity from a lenient JSON decoder all become 400s.

Schema validation uses `jsonschema_rs` (Draft 2020-12) over the installed spec's `components`; the
validators are compiled once per schema. The semantic rules of `validate_forward_backward` follow
`wire-format.md` §2.2-2.3 and `losses.md` §1 and §11; the per-loss tables below are the only place
they are written down in code.
"""

from __future__ import annotations

import array
import functools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import jsonschema_rs
import numpy as np

from ._errors import invalid
from ._losses import DEFAULTS, PARAMS_KEYS
from ._spec import find_operation, load_spec, resolve_ref

_DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"

# --------------------------------------------------------------------------------------------
# JSON Schema validation against the spec


def _compile(schema: dict[str, Any]) -> jsonschema_rs.Validator:
    """A validator for `schema` in which `#/components/...` refers to the spec's components."""
    root = {"$schema": _DRAFT_2020_12, **schema, "components": load_spec()["components"]}
    # The mask keeps jsonschema_rs from rendering (possibly megabytes of) values into messages;
    # reasons are written from the error's kind and the value looked up in the instance.
    return jsonschema_rs.validator_for(root, mask="<value>")


@functools.cache
def _schema_validator(schema_name: str) -> jsonschema_rs.Validator:
    if schema_name not in load_spec()["components"]["schemas"]:
        raise KeyError(f"no schema {schema_name!r} in #/components/schemas")
    return _compile({"$ref": f"#/components/schemas/{schema_name}"})


def validate_schema(schema_name: str, body: object) -> None:
    """Validate `body` against `#/components/schemas/<schema_name>`; 400 naming the first error.

    The error reported is the first one the validator finds, refined through `oneOf`/`anyOf` to
    the branch the client evidently meant (a token given as `1.5` is "expected integer or string,
    got number"; a token `-1` is "-1 is less than the minimum of 0").
    """
    validator = _schema_validator(schema_name)
    schema = load_spec()["components"]["schemas"][schema_name]
    if schema.get("type") == "object" and not isinstance(body, dict):
        # Said at once: jsonschema_rs would first copy a (possibly huge) non-object body.
        raise invalid(None, f"the request body must be a JSON object, got {json_type(body)}")
    problem = _first_problem(validator, body)
    if problem is not None:
        raise invalid(*problem)


def _first_problem(
    validator: jsonschema_rs.Validator, instance: object
) -> tuple[str | None, str] | None:
    """`(param, reason)` of the first schema violation, or None when `instance` is valid."""
    try:
        if validator.is_valid(instance):
            return None
        # `validate` stops at the first error; `iter_errors` would collect them all first
        # (seconds for a batch where every number is a string).
        validator.validate(instance)
    except jsonschema_rs.ValidationError as error:
        return _describe_error(error, instance)
    except (ValueError, TypeError, RecursionError, OverflowError) as exc:
        # jsonschema_rs raises ValueError("Recursion limit reached") for absurd nesting.
        reason = (
            "is nested too deeply" if "ecursion" in str(exc) else "holds a value that is not JSON"
        )
        return None, f"the request {reason}"
    return None, "the request does not match the API schema"  # is_valid and validate disagree


# --------------------------------------------------------------------------------------------
# Turning jsonschema_rs errors into (param, reason)

_Kind = jsonschema_rs.ValidationErrorKind


def _describe_error(error: jsonschema_rs.ValidationError, root: object) -> tuple[str | None, str]:
    error = _meant_branch(error)
    kind = error.kind
    path: list[str | int] = list(error.instance_path)
    instance = _lookup(root, path, error)
    if isinstance(kind, _Kind.OneOfNotValid | _Kind.AnyOf):
        # Every branch failed on the type of the value itself: name the accepted types.
        accepted = _branch_types(kind.context)
        return format_path(path), f"expected {' or '.join(accepted)}, got {json_type(instance)}"
    if isinstance(kind, _Kind.Required):
        return format_path([*path, kind.property]), f"'{kind.property}' is a required property"
    if isinstance(kind, _Kind.AdditionalProperties):
        name = sorted(kind.unexpected)[0]
        allowed = _allowed_properties(error.schema_path)
        hint = (
            ""
            if allowed is None
            else f"; allowed: {', '.join(allowed)}"
            if allowed
            else "; this object takes none"
        )
        return format_path([*path, name]), f"unexpected property '{name}'{hint}"
    return format_path(path), _reason(error, kind, instance)


def _lookup(
    root: object, path: Sequence[str | int], error: jsonschema_rs.ValidationError
) -> object:
    """The value at `path` in the original instance (jsonschema_rs shows NaN as null)."""
    node: Any = root
    try:
        for part in path:
            node = node[part]
    except (KeyError, IndexError, TypeError):
        return error.instance
    return node


def _meant_branch(error: jsonschema_rs.ValidationError) -> jsonschema_rs.ValidationError:
    """Descend `oneOf`/`anyOf` into the branch the client meant: the first whose type matched."""
    while isinstance(error.kind, _Kind.OneOfNotValid | _Kind.AnyOf):
        meant = [
            branch
            for branch in error.kind.context
            if branch and not all(_is_own_type_error(e, error) for e in branch)
        ]
        if not meant:
            return error
        error = meant[0][0]
    return error


def _is_own_type_error(
    branch_error: jsonschema_rs.ValidationError, parent: jsonschema_rs.ValidationError
) -> bool:
    return isinstance(branch_error.kind, _Kind.Type) and list(branch_error.instance_path) == list(
        parent.instance_path
    )


def _branch_types(context: Sequence[Sequence[jsonschema_rs.ValidationError]]) -> list[str]:
    accepted: list[str] = []
    for branch in context:
        for e in branch:
            if isinstance(e.kind, _Kind.Type):
                accepted.extend(t for t in e.kind.types if t not in accepted)
    return accepted or ["one of the documented forms"]


def _reason(error: jsonschema_rs.ValidationError, kind: _Kind, instance: object) -> str:
    if isinstance(kind, _Kind.Type):
        if isinstance(instance, float) and not math.isfinite(instance):
            return "NaN and Infinity are not valid numbers"
        return f"expected {' or '.join(kind.types)}, got {json_type(instance)}"
    if isinstance(kind, _Kind.Enum):
        options = ", ".join(_short(option) for option in kind.options)
        return f"{_short(instance)} is not one of [{options}]"
    if isinstance(kind, _Kind.Constant):
        return f"must be {_short(kind.expected_value)}"
    if isinstance(kind, _Kind.Minimum):
        return f"{_short(instance)} is less than the minimum of {kind.limit}"
    if isinstance(kind, _Kind.Maximum):
        return f"{_short(instance)} is greater than the maximum of {kind.limit}"
    if isinstance(kind, _Kind.ExclusiveMinimum):
        return f"{_short(instance)} must be greater than {kind.limit}"
    if isinstance(kind, _Kind.ExclusiveMaximum):
        return f"{_short(instance)} must be less than {kind.limit}"
    if isinstance(kind, _Kind.MinItems):
        return f"must have at least {kind.limit} item{'s' if kind.limit != 1 else ''}"
    if isinstance(kind, _Kind.MaxItems):
        return f"must have at most {kind.limit} item{'s' if kind.limit != 1 else ''}"
    if isinstance(kind, _Kind.MinLength):
        return (
            "must not be empty" if kind.limit == 1 else f"must be at least {kind.limit} characters"
        )
    if isinstance(kind, _Kind.MaxLength):
        return f"must be at most {kind.limit} characters"
    if isinstance(kind, _Kind.MinProperties):
        return f"must have at least {kind.limit} propert{'ies' if kind.limit != 1 else 'y'}"
    if isinstance(kind, _Kind.Pattern):
        if "TokenId" in error.schema_path:
            return (
                "string token ids must be decimal integers of at most 19 digits, "
                f"got {_short(instance)}"
            )
        if "Int64Value" in error.schema_path:
            return f"string int64 values must be decimal integers, got {_short(instance)}"
        return f"{_short(instance)} does not match the pattern '{kind.pattern}'"
    message = str(error.message)
    return message if len(message) <= 200 else message[:200] + "..."


def _allowed_properties(schema_path: Sequence[str | int]) -> list[str] | None:
    """The declared properties of the object schema an `additionalProperties` error came from."""
    node: Any = load_spec()
    try:
        for part in list(schema_path)[:-1]:
            node = node[part]
        properties = resolve_ref(node).get("properties", {})
    except (KeyError, IndexError, TypeError):
        return None
    return list(properties)


def format_path(parts: Sequence[str | int]) -> str | None:
    """`["samples", 2, "loss_fn_inputs", "x"]` -> `samples[2].loss_fn_inputs.x` (None if empty)."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or None


def json_type(value: object) -> str:
    """The JSON type name of a decoded value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _short(value: object) -> str:
    """A value for a message: scalars shown (strings quoted, cut at 60 chars), containers named."""
    if isinstance(value, str):
        return repr(value if len(value) <= 60 else value[:60] + "...")
    if value is None or isinstance(value, bool):
        return json_type(value) if value is None else str(value).lower()
    if isinstance(value, int | float):
        text = repr(value)
        return text if len(text) <= 40 else text[:40] + "..."
    return f"an {json_type(value)}" if json_type(value) in ("array", "object") else json_type(value)


# --------------------------------------------------------------------------------------------
# Query, header and path parameters

_INTEGER_TEXT = re.compile(r"-?[0-9]{1,30}")
_NUMBER_TEXT = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")


@dataclass(frozen=True)
class _Parameter:
    name: str
    required: bool
    schema: dict[str, Any]
    validator: jsonschema_rs.Validator


@functools.cache
def _parameter(operation_id: str, name: str) -> _Parameter:
    path, _, operation = find_operation(operation_id)
    declared = [*load_spec()["paths"][path].get("parameters", []), *operation.get("parameters", [])]
    for node in declared:
        parameter = resolve_ref(node)
        same_name = (
            parameter["name"].lower() == name.lower()
            if parameter["in"] == "header"
            else parameter["name"] == name
        )
        if same_name:
            schema = parameter.get("schema", {})
            return _Parameter(
                name=parameter["name"],
                required=bool(parameter.get("required", False)),
                schema=schema,
                validator=_compile(schema),
            )
    raise KeyError(f"operation {operation_id!r} declares no parameter {name!r}")


def validate_parameter(operation_id: str, name: str, raw: str | list[str] | None) -> object:
    """Coerce and validate one query/header/path parameter as the spec declares it.

    `raw` is the value as received: None when absent, a string, or the list of a repeated query
    parameter. Integers are parsed from decimal text; arrays accept comma-separated values,
    repeated parameters, or both. Returns the coerced value (the schema's `default`, or None,
    when an optional parameter is absent); refuses with `invalid(name, reason)`.
    """
    parameter = _parameter(operation_id, name)
    values = [raw] if isinstance(raw, str) else list(raw or [])
    if not values:
        if parameter.required:
            raise invalid(name, "is required")
        default: object = resolve_ref(parameter.schema).get("default")
        return default
    schema = resolve_ref(parameter.schema)
    value: object
    if schema.get("type") == "array":
        item_schema = resolve_ref(schema.get("items", {}))
        if all(text == "" for text in values):  # `status=`: an empty array, as if absent
            if parameter.required:
                raise invalid(name, "is required")
            return None
        # Items exactly as sent: an empty item (`a,,b`) or one with spaces fails the item schema.
        value = [_coerce(name, part, item_schema) for text in values for part in text.split(",")]
    else:
        if len(values) > 1:
            raise invalid(name, "must be given only once")
        value = _coerce(name, values[0], schema)
    problem = _first_problem(parameter.validator, value)
    if problem is not None:
        raise invalid(name, problem[1])
    return value


def _coerce(name: str, text: str, schema: dict[str, Any]) -> object:
    kind = schema.get("type")
    if kind == "integer":
        if not _INTEGER_TEXT.fullmatch(text):
            raise invalid(name, f"expected an integer, got {_short(text)}")
        return int(text)
    if kind == "number":
        if not _NUMBER_TEXT.fullmatch(text) or not math.isfinite(float(text)):
            raise invalid(name, f"expected a number, got {_short(text)}")
        return float(text)
    if kind == "boolean":
        if text not in ("true", "false"):
            raise invalid(name, f"expected true or false, got {_short(text)}")
        return text == "true"
    return text


# --------------------------------------------------------------------------------------------
# Forward-backward: the rules the schema cannot express

_POLICY_INPUTS = ("target_tokens", "logprobs", "advantages")
_REQUIRED_INPUTS: dict[str, tuple[str, ...]] = {
    loss_type: ("target_tokens", "weights")
    if loss_type == "LOSS_TYPE_CROSS_ENTROPY"
    else _POLICY_INPUTS
    for loss_type in PARAMS_KEYS
}
# Allowed dtypes of the known keys; unknown keys take either dtype of the schema.
_INPUT_DTYPES: dict[str, tuple[str, ...]] = {
    "target_tokens": ("int64",),
    "logprobs": ("float32",),
    "advantages": ("float32",),
    "reference_logprobs": ("float32",),
    "weights": ("int64", "float32"),
    "mask": ("int64", "float32"),
}
_FLOAT32_MAX = float(np.finfo(np.float32).max)
_INT64_LIMIT = 2.0**63


@dataclass(frozen=True)
class ValidatedSample:
    tokens: np.ndarray  # int64 (N,): the model input, chunks concatenated
    targets: np.ndarray  # int64 (N,): loss_fn_inputs.target_tokens
    inputs: dict[str, np.ndarray]  # every loss_fn_inputs key -> float64 (N,), target_tokens too


@dataclass(frozen=True)
class ForwardBackwardRequest:
    samples: list[ValidatedSample]
    loss: dict[str, Any]  # the wire `loss` object: `type` and at most its own params object
    forward_only: bool
    return_loss_fn_outputs: bool


def validate_forward_backward(body: object, vocab_size: int) -> ForwardBackwardRequest:
    """Validate a `ForwardBackwardBody` fully and return it as arrays ready for the math.

    Schema first, then: the loss type and its params object (only the one matching `loss.type`;
    `LOSS_TYPE_UNSPECIFIED` refused; `dro_params` required for DRO; CISPO low <= high; bounds and
    finiteness re-checked), then per sample: required `loss_fn_inputs` for the loss type
    (`reference_logprobs` too for GRPO with beta > 0), `weights` xor `mask`, dtype per known key,
    no sparse fields, `shape == [len(data)]`, every tensor as long as the model input, finite
    numbers that fit their dtype, int64 tensors integral, non-negative weights, token ids and
    target tokens inside `[0, vocab_size)`.

    Unknown `loss_fn_inputs` keys are accepted (as the official SDK sends them) and checked like
    any tensor. `reference_logprobs` outside GRPO is treated the same way: accepted, checked as a
    float32 tensor, and ignored by the math.
    """
    validate_schema("ForwardBackwardBody", body)
    assert isinstance(body, dict)  # guaranteed by the schema
    loss: dict[str, Any] = body["loss"]
    try:
        loss_type = _validate_loss(loss)
        required = _REQUIRED_INPUTS[loss_type]
        if loss_type == "LOSS_TYPE_GRPO" and loss.get("grpo_params", {}).get("beta", 0.0) > 0:
            required = (*required, "reference_logprobs")
        samples = [
            _validate_sample(index, sample, loss_type, required, vocab_size)
            for index, sample in enumerate(body["samples"])
        ]
    except (OverflowError, ValueError, TypeError, RecursionError) as exc:
        # A value the checks above did not foresee; refuse it rather than answer 5xx.
        raise invalid(None, "the request holds a value that cannot be used as a number") from exc
    return ForwardBackwardRequest(
        samples=samples,
        loss=dict(loss),
        forward_only=bool(body.get("forward_only", False)),
        return_loss_fn_outputs=bool(body.get("return_loss_fn_outputs", False)),
    )


def _validate_loss(loss: dict[str, Any]) -> str:
    loss_type: str = loss["type"]
    if loss_type not in PARAMS_KEYS:
        raise invalid(
            "loss.type", f"{loss_type} is not a loss; use one of {', '.join(PARAMS_KEYS)}"
        )
    params_key = PARAMS_KEYS[loss_type]
    for key in loss:
        if key not in ("type", params_key):
            allowed = f"only loss.{params_key} is" if params_key else "it takes no params object"
            raise invalid(f"loss.{key}", f"not allowed for {loss_type} ({allowed})")
    if params_key is None:
        return loss_type
    if loss_type == "LOSS_TYPE_DRO" and params_key not in loss:
        raise invalid(f"loss.{params_key}", "is required for LOSS_TYPE_DRO (beta has no default)")
    params: dict[str, Any] = loss.get(params_key, {})
    _check_param_bounds(params_key, params)
    if loss_type == "LOSS_TYPE_CISPO":
        # The defaults the math uses (the spec's `CISPOLossParams` states them in prose only).
        low = params.get("clip_low_threshold", DEFAULTS[params_key]["clip_low_threshold"])
        high = params.get("clip_high_threshold", DEFAULTS[params_key]["clip_high_threshold"])
        if low > high:
            shown = high if "clip_high_threshold" in params else f"{high}, the default"
            raise invalid(
                f"loss.{params_key}.clip_low_threshold",
                f"{low} exceeds clip_high_threshold ({shown}); need low <= high",
            )
    return loss_type


def _check_param_bounds(params_key: str, params: dict[str, Any]) -> None:
    """Re-check finiteness and the spec's minimum/maximum of each numeric param."""
    config = resolve_ref(load_spec()["components"]["schemas"]["LossConfig"])
    declared = resolve_ref(config["properties"][params_key]).get("properties", {})
    for name, value in params.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        param = f"loss.{params_key}.{name}"
        if not _fits_double(value) or not math.isfinite(value):
            raise invalid(param, "must be a finite number that fits a double")
        bounds = resolve_ref(declared.get(name, {}))
        if "minimum" in bounds and value < bounds["minimum"]:
            raise invalid(param, f"{_short(value)} is less than the minimum of {bounds['minimum']}")
        if "maximum" in bounds and value > bounds["maximum"]:
            raise invalid(
                param, f"{_short(value)} is greater than the maximum of {bounds['maximum']}"
            )


def _validate_sample(
    index: int,
    sample: dict[str, Any],
    loss_type: str,
    required: tuple[str, ...],
    vocab_size: int,
) -> ValidatedSample:
    base = f"samples[{index}]"
    chunks: list[dict[str, Any]] = sample["model_input"]["chunks"]
    chunk_tokens = [chunk["encoded_text"]["tokens"] for chunk in chunks]
    token_list = chunk_tokens[0] if len(chunk_tokens) == 1 else [t for c in chunk_tokens for t in c]
    n_tokens = len(token_list)

    # Structure first (cheap), values after.
    tensors: dict[str, dict[str, Any]] = sample["loss_fn_inputs"]
    for key in required:
        if key not in tensors:
            why = " when loss.grpo_params.beta > 0" if key == "reference_logprobs" else ""
            raise invalid(f"{base}.loss_fn_inputs.{key}", f"is required by {loss_type}{why}")
    if "weights" in tensors and "mask" in tensors:
        raise invalid(
            f"{base}.loss_fn_inputs", "weights and mask are mutually exclusive; send only one"
        )
    for key, tensor in tensors.items():
        _check_tensor_structure(f"{base}.loss_fn_inputs.{key}", key, tensor, n_tokens)

    tokens = _token_array(f"{base}.model_input", chunk_tokens, token_list, vocab_size)
    inputs = {
        key: _tensor_values(f"{base}.loss_fn_inputs.{key}", tensor)
        for key, tensor in tensors.items()
    }
    targets_path = f"{base}.loss_fn_inputs.target_tokens"
    targets = inputs["target_tokens"]
    _require_all(
        targets_path,
        targets,
        (targets >= 0) & (targets < vocab_size),
        lambda v: f"target token {v:.0f} is outside the vocabulary [0, {vocab_size})",
    )
    if "weights" in inputs:
        weights = inputs["weights"]
        if weights.min() < 0:
            _require_all(
                f"{base}.loss_fn_inputs.weights",
                weights,
                weights >= 0,
                lambda v: f"weights must be non-negative, got {v!r}",
            )
    return ValidatedSample(tokens=tokens, targets=targets.astype(np.int64), inputs=inputs)


def _check_tensor_structure(path: str, key: str, tensor: dict[str, Any], n_tokens: int) -> None:
    for sparse in ("sparse_crow_indices", "sparse_col_indices"):
        if sparse in tensor:
            raise invalid(f"{path}.{sparse}", "unsupported for training operations; omit it")
    dtype = tensor["dtype"]
    allowed = _INPUT_DTYPES.get(key)
    if allowed is not None and dtype not in allowed:
        expected = " or ".join(f"'{d}'" for d in allowed)
        raise invalid(f"{path}.dtype", f"{key} must have dtype {expected}, got '{dtype}'")
    length = len(tensor["data"])
    shape = tensor.get("shape")
    if shape is not None and list(shape) != [length]:
        raise invalid(
            f"{path}.shape",
            f"training tensors are 1-D: shape must be [{length}] (the length of data), got {shape}",
        )
    if length != n_tokens:
        raise invalid(
            path, f"has {length} values but the sample's model input has {n_tokens} tokens"
        )


def _token_array(
    input_path: str, chunk_tokens: list[list[Any]], token_list: list[Any], vocab_size: int
) -> np.ndarray:
    """The model input as int64; token ids are ints or decimal strings (checked by the schema)."""
    try:
        # The schema admits only ints and decimal strings here; fromiter parses both, fast.
        tokens = np.fromiter(token_list, dtype=np.int64, count=len(token_list))
    except (OverflowError, ValueError, TypeError):
        tokens = None  # beyond int64: certainly outside the vocabulary, located below
    if tokens is not None:
        in_vocab = (tokens >= 0) & (tokens < vocab_size)
        if bool(in_vocab.all()):
            return tokens
        bad = int(np.flatnonzero(~in_vocab)[0])
    else:
        bad = next(j for j, t in enumerate(token_list) if not 0 <= int(t) < vocab_size)
    chunk = 0
    while bad >= len(chunk_tokens[chunk]):
        bad -= len(chunk_tokens[chunk])
        chunk += 1
    value = chunk_tokens[chunk][bad]
    raise invalid(
        f"{input_path}.chunks[{chunk}].encoded_text.tokens[{bad}]",
        f"token id {value} is outside the vocabulary of the base model [0, {vocab_size})",
    )


def _tensor_values(path: str, tensor: dict[str, Any]) -> np.ndarray:
    """The tensor's data as float64, checked for finiteness, its dtype's range and integrality.

    The schema has already admitted only JSON numbers in `data`, so the fast conversions below
    never see strings or booleans.
    """
    data: list[Any] = tensor["data"]
    if tensor["dtype"] == "int64":
        try:
            # array("q") takes exact ints only: a float or an int beyond int64 raises, and the
            # general path below then finds and names the value.
            exact = np.frombuffer(array.array("q", data), dtype=np.int64)
            return exact.astype(np.float64)
        except (OverflowError, TypeError, ValueError):
            pass
    try:
        values = np.fromiter(data, dtype=np.float64, count=len(data))
    except (OverflowError, ValueError, TypeError):
        bad = next(j for j, v in enumerate(data) if not _fits_double(v))
        raise invalid(path, f"number too large for a double at data[{bad}]") from None
    if tensor["dtype"] == "float32":
        # Written so that NaN fails too (every comparison with NaN is False).
        if not (values.max() <= _FLOAT32_MAX and values.min() >= -_FLOAT32_MAX):
            _require_all(path, values, np.abs(values) <= _FLOAT32_MAX, _float32_reason)
        return values
    # int64 holding floats or huge ints (rare): integral and inside [-2**63, 2**63). NaN and
    # Infinity are never `ok`. float64 rounds ints near +-2**63, so ints are judged exactly.
    ok = (values == np.trunc(values)) & (values >= -_INT64_LIMIT) & (values < _INT64_LIMIT)
    for j, original in enumerate(data):
        if type(original) is int:
            ok[j] = -(2**63) <= original < 2**63
    _require_all(path, values, ok, _int64_reason, originals=data)
    return values


def _fits_double(value: Any) -> bool:
    try:
        float(value)
    except (OverflowError, ValueError, TypeError):
        return False
    return True


def _float32_reason(value: float) -> str:
    if not math.isfinite(value):
        return "NaN and Infinity are not valid numbers"
    return f"{value!r} does not fit in float32"


def _int64_reason(value: float | int) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN and Infinity are not valid numbers"
    if isinstance(value, float) and value != math.trunc(value):
        return f"int64 tensors hold integers, got {value!r}"
    return f"{value!r} does not fit in int64"


def _require_all(
    path: str,
    values: np.ndarray,
    ok: np.ndarray,
    reason: Callable[[Any], str],
    originals: list[Any] | None = None,
) -> None:
    """Refuse the tensor at `path` for its first element where `ok` is False, if any."""
    bad = np.flatnonzero(~ok)
    if bad.size:
        j = int(bad[0])
        value = originals[j] if originals is not None else float(values[j])
        raise invalid(path, f"{reason(value)} at data[{j}]")
