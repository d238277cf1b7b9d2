"""Integers are integers: this emulator's strictness beyond JSON Schema.

JSON Schema counts `3600.0` (and `1e3`) as an integer, so a body that sends `inactive_timeout:
3600.0` or `num_generator_replicas: 1e300` would pass the spec's `type: integer` and be stored as
a float. The official SDK types these fields `int` (e.g. together==3.1.1
`ModelResourceCreateParams.inactive_timeout: int`), so a client that sends a float has a bug that
the live API may or may not forgive; the emulator refuses it (400 naming the field). And an int64
written as a decimal string (`Int64Value`) must fit int64 like its integer form does.

`strict_components(components)` is the spec's components with two keywords added, which
`keywords()` implements for jsonschema_rs:

- `x-whole-number` on every `type: integer` node: the JSON value must be written as an integer
  (a decoded Python `int`), not as a number with a fraction or exponent. Token ids (`TokenId`)
  are left to the token checks, which refuse a float token at C speed (a batch holds millions).
- `x-int64-text` on the string form of `Int64Value`: the decimal text within int64.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

__all__ = ["INT64_MAX", "INT64_MIN", "STRICT_KEYWORDS", "keywords", "strict_components"]

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_WHOLE = "x-whole-number"
_INT64_TEXT = "x-int64-text"
STRICT_KEYWORDS = frozenset({_WHOLE, _INT64_TEXT})  # rules of this emulator's own
_LEFT_TO_TOKEN_CHECKS = ("TokenId",)


def strict_components(components: dict[str, Any]) -> dict[str, Any]:
    """A copy of `components` with `x-whole-number` and `x-int64-text` where they apply."""
    strict = copy.deepcopy(components)
    for name, schema in strict.get("schemas", {}).items():
        if name not in _LEFT_TO_TOKEN_CHECKS:
            _mark_integers(schema)
    for branch in strict.get("schemas", {}).get("Int64Value", {}).get("oneOf", []):
        if branch.get("type") == "string":
            branch[_INT64_TEXT] = True
    return strict


def _mark_integers(node: Any) -> None:
    if isinstance(node, dict):
        kind = node.get("type")
        if kind == "integer" or (isinstance(kind, list) and "integer" in kind):
            node[_WHOLE] = True
        for value in node.values():
            _mark_integers(value)
    elif isinstance(node, list):
        for item in node:
            _mark_integers(item)


class _WholeNumber:
    def __init__(self, parent_schema: Any, value: Any, schema_path: Any) -> None:
        pass

    def validate(self, instance: Any) -> None:
        if type(instance) is float:
            shown = repr(instance) if len(repr(instance)) <= 40 else repr(instance)[:40] + "..."
            raise ValueError(
                f"expected an integer written without a fraction or exponent, got {shown}"
                " (JSON Schema counts it as an integer; this emulator does not)"
            )


class _Int64Text:
    def __init__(self, parent_schema: Any, value: Any, schema_path: Any) -> None:
        pass

    def validate(self, instance: Any) -> None:
        digits = type(instance) is str and instance.lstrip("-").isdigit()
        if digits and not INT64_MIN <= int(instance) <= INT64_MAX:
            raise ValueError(f"{instance!r} is outside int64 [{INT64_MIN}, {INT64_MAX}]")


@functools.cache
def keywords() -> dict[str, Any]:
    """The custom keywords for `jsonschema_rs.validator_for(..., keywords=...)`."""
    return {_WHOLE: _WholeNumber, _INT64_TEXT: _Int64Text}
