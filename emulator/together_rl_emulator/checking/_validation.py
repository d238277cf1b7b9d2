"""Validation against the spec: JSON Schemas of bodies (parameters: `_parameters.py`).

Every refusal is an `ApiError` 400 (`invalid(param, reason)`) whose `param` is the wire path of the
offending field, e.g. `samples[2].loss_fn_inputs.advantages.dtype`, and whose reason says what to
change. Nothing here raises anything else for anything a client can send: absurd nesting, numbers
too large for a double or an int64, NaN/Infinity from a lenient JSON decoder all become 400s.

Schema validation uses `jsonschema_rs` (Draft 2020-12) over the installed spec's `components`; the
validators are compiled once per schema. The one cross-field rule of a schema's own properties,
`x-at-least` (a property at least the one it names), is checked here with the schema; the rules
a schema cannot express, per operation kind, are in `_requests.py`.
"""

from __future__ import annotations

import copy
import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import jsonschema_rs
from together_rl_spec import format_path

from ..base import (
    EMULATOR_RULE_NOTE,
    STRICT_KEYWORDS,
    emulator_rule,
    invalid,
    json_type,
    keywords,
    load_spec,
    node_at,
    resolve_ref,
    short_value,
    strict_components,
)
from ._body_scan import MIN_LENGTH

__all__ = [
    "BULK_ARRAYS",
    "Violation",
    "compile_schema",
    "first_violation",
    "format_path",
    "schema_violation",
    "valid_apart_from_bulk_items",
    "validate_schema",
]

_DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"

# --------------------------------------------------------------------------------------------
# JSON Schema validation against the spec


def compile_schema(schema: dict[str, Any]) -> jsonschema_rs.Validator:
    """A validator for `schema` in which `#/components/...` refers to the spec's components."""
    root = {"$schema": _DRAFT_2020_12, **schema, "components": _strict_components()}
    # The mask keeps jsonschema_rs from rendering (possibly megabytes of) values into messages;
    # reasons are written from the error's kind and the value looked up in the instance.
    return jsonschema_rs.validator_for(root, mask="<value>", keywords=keywords())


@functools.cache
def _strict_components() -> dict[str, Any]:
    return strict_components(load_spec()["components"])


@functools.cache
def _schema_validator(schema_name: str) -> jsonschema_rs.Validator:
    if schema_name not in load_spec()["components"]["schemas"]:
        raise KeyError(f"no schema {schema_name!r} in #/components/schemas")
    return compile_schema({"$ref": f"#/components/schemas/{schema_name}"})


def validate_schema(schema_name: str, body: object) -> None:
    """Validate `body` against `#/components/schemas/<schema_name>`; 400 naming the first error.

    The error reported is the first one the validator finds, refined through `oneOf`/`anyOf` to
    the branch the client evidently meant (a token given as `1.5` is "expected integer or string,
    got number"; a token `-1` is "-1 is less than the minimum of 0").
    """
    schema = load_spec()["components"]["schemas"][schema_name]
    if schema.get("type") == "object" and not isinstance(body, dict):
        # Said at once: jsonschema_rs would first copy a (possibly huge) non-object body.
        raise invalid(None, f"the request body must be a JSON object, got {json_type(body)}")
    violation = schema_violation(schema_name, body)
    if violation is not None:
        raise invalid(violation.param, violation.reason, emulator_rule=violation.emulator_rule)


def schema_violation(schema_name: str, body: object) -> Violation | None:
    """The violation `validate_schema` reports for `body` (a JSON object), or None."""
    schema = load_spec()["components"]["schemas"][schema_name]
    validator = _schema_validator(schema_name)
    return first_violation(validator, body) or _at_least_violation(schema, body)


def _at_least_violation(schema: dict[str, Any], body: object) -> Violation | None:
    """The first property of `body` below the one `schema`'s `x-at-least` names (both
    present; their types already checked against the schema)."""
    if not isinstance(body, dict):
        return None
    for name, other in schema.get("x-at-least", {}).items():
        if name in body and other in body and body[name] < body[other]:
            reason = f"{body[name]} is less than {other} ({body[other]}); it must be at least that"
            return Violation(name, reason, emulator_rule(schema, "x-at-least"))
    return None


# The keywords a one-string `x-source` applies to (COMMON.md's shared format), besides every
# `x-` rule keyword; a `type` or `format` mismatch is the schema's shape, not a sourced rule.
_CONSTRAINT_KEYWORDS = frozenset(
    {
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
        "pattern", "minItems", "maxItems", "minProperties", "maxProperties", "uniqueItems",
        "multipleOf", "enum", "required", "const", "additionalProperties", "default",
    }
)  # fmt: skip


def _breaks_emulator_rule(
    error: jsonschema_rs.ValidationError, local: dict[str, Any] | None = None
) -> bool:
    """Whether the keyword `error` breaks has `x-source: emulator` on the schema object holding
    it. `schema_path` runs from the spec's root (`components/...`) or, for a parameter's own
    schema, from `local`."""
    path = list(error.schema_path)
    if not path or not isinstance(path[-1], str):
        return False
    keyword = path[-1]
    if keyword in STRICT_KEYWORDS:
        return True
    if keyword not in _CONSTRAINT_KEYWORDS and not keyword.startswith("x-"):
        return False
    root: Any = load_spec() if path[0] == "components" or local is None else local
    try:
        node = node_at(root, path[:-1])
    except (KeyError, IndexError, TypeError):
        return False
    return isinstance(node, dict) and emulator_rule(node, keyword)


# The arrays whose items a caller may check in bulk (`valid_apart_from_bulk_items`), with the
# items schema its bulk check implements: (schema, property) -> items. When the spec says
# otherwise, the fast path is off and every body gets the full validation.
BULK_ARRAYS: dict[tuple[str, str], dict[str, Any]] = {
    ("TensorData", "data"): {"type": "number", "format": "double"},
    ("EncodedTextChunk", "tokens"): {"$ref": "#/components/schemas/TokenId"},
}
_BULK_TOKEN_ID = {  # what the bulk check of tokens implements: ids as JSON ints
    "oneOf": [
        {"type": "integer", "format": "int64", "minimum": 0, "maximum": 2**63 - 1},
        {"type": "string", "pattern": "^[0-9]{1,19}$"},
    ]
}


@functools.cache
def _skeleton_validator(schema_name: str) -> jsonschema_rs.Validator | None:
    """A validator of `schema_name` that leaves the items of `BULK_ARRAYS` unchecked, or None
    when the spec's items are not those the bulk checks implement, or when a bulk array has a
    rule on more than its type and items beyond a `minItems` every scanned list meets (a body
    decoded fast stands in for its lists with `MIN_LENGTH` zeros, `_body_scan.skeleton`)."""
    components = copy.deepcopy(_strict_components())
    schemas = components["schemas"]
    token_id = _without_annotations(schemas.get("TokenId", {}))
    if token_id != _BULK_TOKEN_ID:
        return None
    for (owner, name), items in BULK_ARRAYS.items():
        array = schemas.get(owner, {}).get("properties", {}).get(name, {})
        if array.get("items") != items or not _stand_in_exact(array):
            return None
        del array["items"]
    root = {"$schema": _DRAFT_2020_12, "$ref": f"#/components/schemas/{schema_name}"}
    return jsonschema_rs.validator_for(
        {**root, "components": components}, mask="<value>", keywords=keywords()
    )


# The keys that say something about a rule without being one (`x-source`: where it comes from).
_ANNOTATIONS = frozenset({"description", "x-source", "x-rules"})


def _without_annotations(node: Any) -> Any:
    """`node` (a schema) without its `_ANNOTATIONS`, at every depth."""
    if isinstance(node, dict):
        return {k: _without_annotations(v) for k, v in node.items() if k not in _ANNOTATIONS}
    if isinstance(node, list):
        return [_without_annotations(item) for item in node]
    return node


def _stand_in_exact(array: dict[str, Any]) -> bool:
    """Whether a list of `MIN_LENGTH` zeros meets `array`'s rules (items aside) exactly when a
    scanned list (at least `MIN_LENGTH` items) does."""
    rules = set(array) - {"type", "items"} - _ANNOTATIONS
    return rules <= {"minItems"} and array.get("minItems", 0) <= MIN_LENGTH


def valid_apart_from_bulk_items(schema_name: str, body: object) -> bool:
    """Whether `body` satisfies `#/components/schemas/<schema_name>` apart from the items of
    `BULK_ARRAYS`, which the caller vouches for by its own checks (False: validate in full).
    Both together are exactly the full validation, at a fraction of its cost on large bodies;
    on any doubt the caller runs `validate_schema`, so errors are always its errors."""
    validator = _skeleton_validator(schema_name)
    if validator is None or not isinstance(body, dict):
        return False
    try:
        return bool(validator.is_valid(body))
    except (ValueError, TypeError, RecursionError, OverflowError):
        return False


@dataclass(frozen=True)
class Violation:
    param: str | None
    reason: str
    emulator_rule: bool  # the broken keyword has `x-source: emulator`


def first_violation(
    validator: jsonschema_rs.Validator, instance: object, local: dict[str, Any] | None = None
) -> Violation | None:
    """The first schema violation, or None when `instance` is valid (`local`: the schema the
    validator was compiled from, when it is not a component)."""
    try:
        if validator.is_valid(instance):
            return None
        # `validate` stops at the first error; `iter_errors` would collect them all first
        # (seconds for a batch where every number is a string).
        validator.validate(instance)
    except jsonschema_rs.ValidationError as error:
        meant = _meant_branch(error)
        param, reason = _describe_error(meant, instance)
        return Violation(param, reason, _breaks_emulator_rule(meant, local))
    except (ValueError, TypeError, RecursionError, OverflowError) as exc:
        # jsonschema_rs raises ValueError("Recursion limit reached") for absurd nesting.
        reason = (
            "is nested too deeply" if "ecursion" in str(exc) else "holds a value that is not JSON"
        )
        return Violation(None, f"the request {reason}", False)
    # is_valid and validate disagree
    return Violation(None, "the request does not match the API schema", False)


def _first_problem(
    validator: jsonschema_rs.Validator, instance: object
) -> tuple[str | None, str] | None:
    """`(param, reason)` of the first schema violation (the reason ends with
    `EMULATOR_RULE_NOTE` for an emulator rule), or None when `instance` is valid."""
    violation = first_violation(validator, instance)
    if violation is None:
        return None
    note = EMULATOR_RULE_NOTE if violation.emulator_rule else ""
    return violation.param, violation.reason + note


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


def _counted(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


# The reason for a value (as `short_value` shows it) outside a bound `n`, by the bound's kind.
_BOUND_REASONS: dict[type[_Kind], Callable[[str, Any], str]] = {
    _Kind.Minimum: lambda value, n: f"{value} is less than the minimum of {n}",
    _Kind.Maximum: lambda value, n: f"{value} is greater than the maximum of {n}",
    _Kind.ExclusiveMinimum: lambda value, n: f"{value} must be greater than {n}",
    _Kind.ExclusiveMaximum: lambda value, n: f"{value} must be less than {n}",
    _Kind.MinItems: lambda _, n: f"must have at least {_counted(n, 'item', 'items')}",
    _Kind.MaxItems: lambda _, n: f"must have at most {_counted(n, 'item', 'items')}",
    _Kind.MaxLength: lambda _, n: f"must be at most {n} characters",
    _Kind.MinProperties: lambda _, n: f"must have at least {_counted(n, 'property', 'properties')}",
}


def _reason(error: jsonschema_rs.ValidationError, kind: _Kind, instance: object) -> str:
    if isinstance(kind, _Kind.Type):
        if isinstance(instance, float) and not math.isfinite(instance):
            return "NaN and Infinity are not valid numbers"
        return f"expected {' or '.join(kind.types)}, got {json_type(instance)}"
    if isinstance(kind, _Kind.Enum):
        options = ", ".join(short_value(option) for option in kind.options)
        return f"{short_value(instance)} is not one of [{options}]"
    if isinstance(kind, _Kind.Constant):
        return f"must be {short_value(kind.expected_value)}"
    if isinstance(kind, _Kind.MinLength):
        return (
            "must not be empty" if kind.limit == 1 else f"must be at least {kind.limit} characters"
        )
    bound = _BOUND_REASONS.get(type(kind))
    if bound is not None:
        return bound(short_value(instance), kind.limit)  # type: ignore[attr-defined]
    if isinstance(kind, _Kind.Pattern):
        if "TokenId" in error.schema_path:
            return (
                "string token ids must be decimal integers of at most 19 digits, "
                f"got {short_value(instance)}"
            )
        if "Int64Value" in error.schema_path:
            return f"string int64 values must be decimal integers, got {short_value(instance)}"
        return f"{short_value(instance)} does not match the pattern '{kind.pattern}'"
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
