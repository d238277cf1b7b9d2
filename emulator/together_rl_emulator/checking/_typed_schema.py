"""msgspec types built at run time from the spec's JSON Schemas, for the typed decoder
(`_typed_body.py`): decoding into them validates in C while it decodes, with no dict made.

The types are made from the same components the JSON Schema validator checks against
(`_strict_numbers.strict_components` of the spec), never retyped by hand. A type accepts at
most what its schema accepts, and may refuse more (then the body takes the validator's path):

- an object with `properties` and `additionalProperties: false` becomes a Struct (a property
  not in `required` is `UNSET` when absent), an object with only `additionalProperties` a dict;
- an array becomes a list, `minItems`/`maxItems` its length bounds;
- `integer` becomes an int64 (`x-whole-number` is what msgspec's int does: no `1.0`; without
  it a JSON `1.0` is refused here but left to the validator), `number` an int64 or a float;
- a string its bounds, an `enum` of strings a Literal, a `pattern` of plain characters with
  its `$` read as the end of the text, as the validator reads it;
- `oneOf` of branches of different JSON types, a union (a token id: a bounded int64, or a
  decimal string of the digits its pattern allows).

Any other keyword (and any schema this cannot translate exactly) gives None: no typed path.
"""

from __future__ import annotations

import functools
import keyword
import re
from typing import Annotated, Any, Literal, Union

import msgspec

from ..base import STRICT_KEYWORDS, load_spec, strict_components

__all__ = ["typed_items"]

# msgspec reads ints as int64 (and uint64): a wider bound is left to the validator.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# Keys that describe a schema without being rules the validator applies.
_ANNOTATIONS = frozenset({"description", "x-source", "x-rules", "x-server-default", "default"})
_REF = "#/components/schemas/"
# Patterns made of these (character classes, repetition counts, anchors) read the same in
# Python's `re` and in the validator's regex engine, once `$` means the end of the text.
_PLAIN_PATTERN = re.compile(r"\^?[\[\]0-9A-Za-z_\-{},]*\$?")


class _Untranslatable(Exception):
    pass


def typed_items(schema_name: str, array_property: str) -> Any | None:
    """The msgspec type of the items of `#/components/schemas/<schema_name>`'s array property
    `array_property`, or None when the spec's schema cannot be translated exactly."""
    return _typed_items(schema_name, array_property)


@functools.cache
def _typed_items(schema_name: str, array_property: str) -> Any | None:
    schemas = _components()
    array = schemas.get(schema_name, {}).get("properties", {}).get(array_property)
    if not isinstance(array, dict) or array.get("type") != "array" or "items" not in array:
        return None
    try:
        return _Translator(schemas).type_of(array["items"])
    except _Untranslatable:
        return None


@functools.cache
def _components() -> dict[str, Any]:
    schemas: dict[str, Any] = strict_components(load_spec()["components"]).get("schemas", {})
    return schemas


class _Translator:
    def __init__(self, schemas: dict[str, Any]) -> None:
        self._schemas = schemas
        self._structs: dict[str, Any] = {}

    def type_of(self, node: Any) -> Any:
        if not isinstance(node, dict):
            raise _Untranslatable(node)
        rules = {key: value for key, value in node.items() if key not in _ANNOTATIONS}
        # `x-` keywords other than those the validator runs are notes for later checks (of
        # those it runs, `x-int64-text` has no translation: its node is untranslatable).
        rules = {
            key: value
            for key, value in rules.items()
            if not key.startswith("x-") or key in STRICT_KEYWORDS
        }
        if "$ref" in rules:
            if set(rules) != {"$ref"} or not rules["$ref"].startswith(_REF):
                raise _Untranslatable(rules)
            return self._component(rules["$ref"][len(_REF) :])
        if "oneOf" in rules:
            if set(rules) != {"oneOf"}:
                raise _Untranslatable(rules)
            return self._union(rules["oneOf"])
        kind = rules.pop("type", None)
        rules.pop("format", None)  # an annotation for this validator
        if kind == "object":
            return self._object(rules)
        if kind == "array":
            return self._array(rules)
        if kind in ("integer", "number"):
            return self._number(kind, rules)
        if kind == "string":
            return self._string(rules)
        if kind == "boolean" and not rules:
            return bool
        raise _Untranslatable(node)

    def _component(self, name: str) -> Any:
        if name not in self._structs:
            if name not in self._schemas:
                raise _Untranslatable(name)
            self._structs[name] = None  # a cycle refers to itself: not translated
            self._structs[name] = self.type_of(self._schemas[name])
        found = self._structs[name]
        if found is None:
            raise _Untranslatable(name)
        return found

    def _union(self, branches: list[Any]) -> Any:
        kinds = [branch.get("type") if isinstance(branch, dict) else None for branch in branches]
        # Disjoint JSON types only: then `oneOf` (exactly one) is `anyOf` is a union.
        if len(set(kinds)) != len(kinds) or not set(kinds) <= {"integer", "string", "boolean"}:
            raise _Untranslatable(branches)
        return Union[tuple(self.type_of(branch) for branch in branches)]  # noqa: UP007

    def _object(self, rules: dict[str, Any]) -> Any:
        properties = rules.pop("properties", None)
        required = rules.pop("required", [])
        extra = rules.pop("additionalProperties", True)
        if rules:
            raise _Untranslatable(rules)
        if properties is None:
            if required or not isinstance(extra, dict):
                raise _Untranslatable(extra)
            return dict[str, self.type_of(extra)]  # type: ignore[misc]
        if extra is not False or not set(required) <= set(properties):
            raise _Untranslatable(properties)
        fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
        for name, schema in properties.items():
            if not name.isidentifier() or keyword.iskeyword(name):
                raise _Untranslatable(name)
            typed = self.type_of(schema)
            if name in required:
                fields.append((name, typed))
            else:
                fields.append((name, typed | msgspec.UnsetType, msgspec.UNSET))
        # Required fields first (a Struct's rule); the order of fields is not the wire's.
        fields.sort(key=lambda field: len(field) == 3)
        return msgspec.defstruct(
            "Typed", fields, forbid_unknown_fields=True, gc=False, omit_defaults=True
        )

    def _array(self, rules: dict[str, Any]) -> Any:
        items = rules.pop("items", None)
        bounds = {"min_length": rules.pop("minItems", None)}
        bounds["max_length"] = rules.pop("maxItems", None)
        if rules or items is None:
            raise _Untranslatable(rules)
        return _annotated(list[self.type_of(items)], bounds)  # type: ignore[misc]

    def _number(self, kind: str, rules: dict[str, Any]) -> Any:
        whole = rules.pop("x-whole-number", None)
        low, high = rules.pop("minimum", INT64_MIN), rules.pop("maximum", INT64_MAX)
        if rules or whole not in (None, True) or (kind == "number" and whole is not None):
            raise _Untranslatable(rules)
        if kind == "integer":
            if not (isinstance(low, int) and isinstance(high, int)):
                raise _Untranslatable((low, high))
            return _annotated(int, {"ge": max(low, INT64_MIN), "le": min(high, INT64_MAX)})
        if (low, high) != (INT64_MIN, INT64_MAX):
            raise _Untranslatable((low, high))  # a bounded number: left to the validator
        # Ints beyond int64 are refused here (the plain decoder reads them as floats).
        return Union[_annotated(int, {"ge": INT64_MIN, "le": INT64_MAX}), float]  # noqa: UP007

    def _string(self, rules: dict[str, Any]) -> Any:
        options = rules.pop("enum", None)
        bounds = {"min_length": rules.pop("minLength", None)}
        bounds["max_length"] = rules.pop("maxLength", None)
        pattern = rules.pop("pattern", None)
        if rules:
            raise _Untranslatable(rules)
        if options is not None:
            if pattern is not None or any(bound is not None for bound in bounds.values()):
                raise _Untranslatable(options)
            if not options or not all(isinstance(option, str) for option in options):
                raise _Untranslatable(options)
            return Literal[tuple(options)]
        if pattern is not None:
            if not isinstance(pattern, str) or not _PLAIN_PATTERN.fullmatch(pattern):
                raise _Untranslatable(pattern)
            bounds["pattern"] = pattern[:-1] + r"\Z" if pattern.endswith("$") else pattern
        return _annotated(str, bounds)


def _annotated(base: Any, bounds: dict[str, Any]) -> Any:
    given = {name: value for name, value in bounds.items() if value is not None}
    return Annotated[base, msgspec.Meta(**given)] if given else base
