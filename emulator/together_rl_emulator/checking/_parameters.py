"""Query, header and path parameters, coerced from their text and validated as the spec
declares them; every refusal is an `invalid(name, reason)` 400 naming the parameter."""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from typing import Any

import jsonschema_rs

from ..base import emulator_rule, find_operation, invalid, load_spec, resolve_ref, short_value
from ._validation import compile_schema, first_violation

__all__ = ["validate_parameter"]

_INTEGER_TEXT = re.compile(r"-?[0-9]{1,30}")
_NUMBER_TEXT = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")


@dataclass(frozen=True)
class _Parameter:
    name: str
    required: bool
    schema: dict[str, Any]
    validator: jsonschema_rs.Validator
    #: The parameter object (its `x-source` may source the rules of its own schema).
    declared: dict[str, Any]


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
                validator=compile_schema(schema),
                declared=parameter,
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
            raise invalid(
                name, "is required", emulator_rule=emulator_rule(parameter.declared, "required")
            )
        default: object = resolve_ref(parameter.schema).get("default")
        return default
    schema = resolve_ref(parameter.schema)
    value: object
    if schema.get("type") == "array":
        item_schema = resolve_ref(schema.get("items", {}))
        if all(text == "" for text in values):
            value = []  # `status=`: the form serialisation of an empty array
        else:
            # Items exactly as sent: an empty item (`a,,b`) or one with spaces fails the item
            # schema, naming the value.
            value = [_coerce(name, p, item_schema) for text in values for p in text.split(",")]
    else:
        if len(values) > 1:
            raise invalid(name, "must be given only once")
        value = _coerce(name, values[0], schema)
    violation = first_violation(parameter.validator, value, parameter.schema)
    if violation is not None:
        shown = f"an empty value ({name}=) " if value == [] else ""
        raise invalid(name, shown + violation.reason, emulator_rule=violation.emulator_rule)
    return None if value == [] else value  # an empty array the spec allows: as if absent


def _coerce(name: str, text: str, schema: dict[str, Any]) -> object:
    kind = schema.get("type")
    if kind == "integer":
        if not _INTEGER_TEXT.fullmatch(text):
            raise invalid(name, f"expected an integer, got {short_value(text)}")
        return int(text)
    if kind == "number":
        if not _NUMBER_TEXT.fullmatch(text) or not math.isfinite(float(text)):
            raise invalid(name, f"expected a number, got {short_value(text)}")
        return float(text)
    if kind == "boolean":
        if text not in ("true", "false"):
            raise invalid(name, f"expected true or false, got {short_value(text)}")
        return text == "true"
    return text
