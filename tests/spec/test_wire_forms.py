"""The int64 forms: generators see one JSON form (`spec/openapi.yaml`), every validator both
(`together_rl_spec.spec_document()`, through `wire_document`), so the wire accepts what it did
when the spec said `oneOf [integer, string]`."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from _spec_schema import load_spec
from together_rl_spec import spec_document, wire_document, wire_schema


def _valid(schema_name: str, value: Any, document: dict[str, Any]) -> bool:
    schema = {"$ref": f"#/components/schemas/{schema_name}", "components": document["components"]}
    return jsonschema.Draft202012Validator(schema).is_valid(value)


@pytest.mark.parametrize(
    ("schema_name", "value", "valid"),
    [
        ("Int64Value", 42, True),
        ("Int64Value", "-42", True),
        ("Int64Value", "4x", False),
        ("Int64Value", 2**63, False),
        ("TokenId", "7", True),
        ("TokenId", -1, False),
        ("Int64String", "100", True),
        ("Int64String", 100, True),
        ("Int64String", 1.5, False),
    ],
)
def test_the_wire_takes_both_forms(schema_name: str, value: Any, valid: bool) -> None:
    assert _valid(schema_name, value, spec_document()) is valid


def test_generators_see_one_form() -> None:
    schemas = load_spec()["components"]["schemas"]
    assert schemas["Int64Value"]["type"] == "integer" and "oneOf" not in schemas["Int64Value"]
    assert schemas["Int64String"]["type"] == "string" and "oneOf" not in schemas["Int64String"]
    assert not _valid("Int64Value", "42", load_spec())  # the string form is the wire view's


def test_each_form_keeps_its_source() -> None:
    node = {
        "type": "integer",
        "format": "int64",
        "minimum": 0,
        "description": "d",
        "x-decimal-string": "^[0-9]+$",
        "x-source": {"minimum": "sdk", "x-decimal-string": "emulator"},
    }
    assert wire_schema(node) == {
        "description": "d",
        "oneOf": [
            {"type": "integer", "format": "int64", "minimum": 0, "x-source": {"minimum": "sdk"}},
            {"type": "string", "pattern": "^[0-9]+$", "x-source": "emulator"},
        ],
    }
    # an `x-source` mapping names the keyword too, and is not a schema
    document = {"components": {"schemas": {"A": {"x-source": {"x-decimal-string": "e"}}}}}
    assert wire_document(document) == document
