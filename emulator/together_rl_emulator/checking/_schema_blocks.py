"""A body with a long array validated against its schema a block of items at a time, so that no
single call of the (GIL-holding) validator spans the whole body. It only ever says "valid": on
any doubt the caller runs `_validation.validate_schema` over the whole body, whose first error
is the one reported, so messages never depend on the blocks."""

from __future__ import annotations

import jsonschema_rs

from ..base import load_spec
from ._validation import _at_least_violation, _schema_validator

__all__ = ["per_item_array", "valid_in_blocks"]

BLOCK = 1_000  # items per validator call
# An array schema with only these keywords (and `minItems` <= 1) is valid as a whole exactly
# when every non-empty block of its items is valid.
_PER_ITEM_KEYWORDS = frozenset({"type", "items", "minItems", "description", "x-source"})
# ... in an object schema with only these keywords (none relating two properties but x-at-least).
_OBJECT_KEYWORDS = frozenset(
    {"type", "required", "additionalProperties", "properties", "description", "x-source"}
    | {"x-at-least"}
)


def per_item_array(schema_name: str, key: str) -> bool:
    """Whether an object valid against `#/components/schemas/<schema_name>` is exactly one
    whose other members and every non-empty part of its array `key` are (with its `minItems`
    met): the array's rules are on its items only, the object's relate no two members."""
    schema = load_spec()["components"]["schemas"][schema_name]
    array = schema.get("properties", {}).get(key, {})
    if set(array) - _PER_ITEM_KEYWORDS or array.get("minItems", 0) > 1:
        return False
    return schema.get("type") == "object" and not set(schema) - _OBJECT_KEYWORDS


def valid_in_blocks(schema_name: str, body: object, key: str, block: int = BLOCK) -> bool:
    """True only if `body` is valid against `#/components/schemas/<schema_name>`, checked with
    `body[key]` cut into blocks of `block` items; False when it is not, or cannot tell."""
    schema = load_spec()["components"]["schemas"][schema_name]
    if not per_item_array(schema_name, key):
        return False
    items = body.get(key) if isinstance(body, dict) else None
    if not isinstance(body, dict) or not isinstance(items, list) or not items:
        return False
    validator = _schema_validator(schema_name)
    try:
        for start in range(0, len(items), block):
            if not validator.is_valid({**body, key: items[start : start + block]}):
                return False
    except (ValueError, TypeError, RecursionError, OverflowError, jsonschema_rs.ValidationError):
        return False
    return _at_least_violation(schema, body) is None
