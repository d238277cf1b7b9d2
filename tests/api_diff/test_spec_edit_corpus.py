"""One spec edit per kind of change, each with the findings it must give.

A finding is (kind, clients verdict, servers verdict).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from _spec_edits import BASE, document, edited
from together_rl_api_diff import compare_documents

Root = dict[str, Any]
SCHEMAS = ("components", "schemas")


def schema(root: Root, name: str) -> Any:
    return root["components"]["schemas"][name]


def prop(root: Root, name: str, field: str) -> Any:
    return schema(root, name)["properties"][field]


def _set(target: dict[str, Any], key: str, value: Any) -> None:
    target[key] = value


B, C = "breaking", "compatible"
POST, LIST, ONE = "POST /pets", "GET /pets", "GET /pets/{pet_id}"

CORPUS: list[tuple[str, Callable[[Root], None], set[tuple[str, str, str]]]] = [
    (
        "request enum value added",
        lambda r: prop(r, "PetCreate", "kind")["enum"].append("fox"),
        {("enum-value-added", C, B)},
    ),
    (
        "request enum value removed",
        lambda r: prop(r, "PetCreate", "kind")["enum"].remove("dog"),
        {("enum-value-removed", B, C)},
    ),
    (
        "response enum value added",
        lambda r: schema(r, "Kind")["enum"].append("fox"),
        {("enum-value-added", B, C)},
    ),
    (
        "response enum value removed",
        lambda r: schema(r, "Kind")["enum"].remove("dog"),
        {("enum-value-removed", C, B)},
    ),
    (
        "request property becomes required",
        lambda r: schema(r, "PetCreate")["required"].append("kind"),
        {("property-became-required", B, C)},
    ),
    (
        "request property becomes optional",
        lambda r: schema(r, "PetCreate")["required"].clear(),
        {("property-became-optional", C, B)},
    ),
    (
        "response property becomes required",
        lambda r: schema(r, "Pet")["required"].append("tag"),
        {("property-became-required", C, B)},
    ),
    (
        "response property becomes optional",
        lambda r: schema(r, "Pet")["required"].remove("name"),
        {("property-became-optional", B, C)},
    ),
    (
        "response property removed",
        lambda r: schema(r, "Pet")["properties"].pop("tag"),
        {("property-removed", B, C)},
    ),
    (
        "request property removed",
        lambda r: schema(r, "PetCreate")["properties"].pop("kind"),
        {("property-removed", B, C)},
    ),
    (
        "request optional property added",
        lambda r: _set(schema(r, "PetCreate")["properties"], "color", {"type": "boolean"}),
        {("property-added-optional", C, B)},
    ),
    (
        "request required property added",
        lambda r: (
            _set(schema(r, "PetCreate")["properties"], "color", {"type": "boolean"}),
            schema(r, "PetCreate")["required"].append("color"),
        ),
        {("property-added-required", B, C)},
    ),
    (
        "response optional property added",
        lambda r: _set(schema(r, "Pet")["properties"], "color", {"type": "boolean"}),
        {("property-added-optional", C, C)},
    ),
    (
        "request property renamed",
        lambda r: _set(
            schema(r, "PetCreate")["properties"],
            "years",
            schema(r, "PetCreate")["properties"].pop("age"),
        ),
        {("property-renamed", B, B)},
    ),
    (
        "request type widened integer -> number",
        lambda r: _set(prop(r, "PetCreate", "age"), "type", "number"),
        {("type-widened", C, B), ("generator-hazard-added", B, C)},
    ),
    (
        "response type narrowed to integer",
        lambda r: _set(prop(r, "Pet", "id"), "type", "integer"),
        {("type-changed", B, B)},
    ),
    (
        "request nullable added",
        lambda r: _set(prop(r, "PetCreate", "name"), "type", ["string", "null"]),
        {("type-widened", C, B)},
    ),
    (
        "request oneOf widening",
        lambda r: _set(
            schema(r, "PetCreate")["properties"],
            "age",
            {"oneOf": [{"type": "integer", "default": 1}, {"type": "string"}]},
        ),
        {("variant-added", C, B), ("generator-hazard-added", B, C)},
    ),
    (
        "response oneOf widening",
        lambda r: _set(
            schema(r, "Pet")["properties"],
            "tag",
            {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        ),
        {("variant-added", B, C), ("generator-hazard-added", B, C)},
    ),
    (
        "request bound tightened",
        lambda r: _set(prop(r, "PetCreate", "name"), "minLength", 3),
        {("bound-tightened", B, C)},
    ),
    (
        "request bound relaxed",
        lambda r: _set(prop(r, "PetCreate", "name"), "minLength", 0),
        {("bound-relaxed", C, B)},
    ),
    (
        "response bound added",
        lambda r: _set(prop(r, "Pet", "name"), "maxLength", 64),
        {("bound-tightened", C, B)},
    ),
    (
        "query parameter bound relaxed",
        lambda r: _set(r["paths"]["/pets"]["get"]["parameters"][0]["schema"], "maximum", 1000),
        {("bound-relaxed", C, B)},
    ),
    (
        "pattern added in a request",
        lambda r: _set(prop(r, "PetCreate", "name"), "pattern", "^[a-z]+$"),
        {("pattern-added", B, C)},
    ),
    (
        "request default changed",
        lambda r: _set(prop(r, "PetCreate", "age"), "default", 2),
        {("default-changed", B, B)},
    ),
    (
        "request server default added",
        lambda r: _set(prop(r, "PetCreate", "name"), "x-server-default", "rex"),
        {("default-added", C, B)},
    ),
    (
        "additionalProperties false removed from a request",
        lambda r: schema(r, "PetCreate").pop("additionalProperties"),
        {("additional-properties-widened", C, B)},
    ),
    (
        "required query parameter added",
        lambda r: r["paths"]["/pets"]["get"]["parameters"].append(
            {"name": "owner", "in": "query", "required": True, "schema": {"type": "string"}}
        ),
        {("parameter-added-required", B, C)},
    ),
    (
        "optional header parameter added",
        lambda r: r["paths"]["/pets"]["get"]["parameters"].append(
            {"name": "X-Trace", "in": "header", "schema": {"type": "string"}}
        ),
        {("parameter-added-optional", C, B)},
    ),
    (
        "query parameter removed",
        lambda r: r["paths"]["/pets"]["get"]["parameters"].clear(),
        {("parameter-removed", B, C)},
    ),
    (
        "success status added",
        lambda r: _set(r["paths"]["/pets"]["post"]["responses"], "201", {"description": "created"}),
        {("response-status-added", B, C)},
    ),
    (
        "error status added",
        lambda r: _set(
            r["paths"]["/pets"]["post"]["responses"], "409", {"description": "conflict"}
        ),
        {("response-error-status-added", C, C)},
    ),
    (
        "status removed",
        lambda r: r["paths"]["/pets/{pet_id}"]["get"]["responses"].pop("200"),
        {("response-status-removed", C, B)},
    ),
    (
        "security alternative removed (anonymous no longer accepted)",
        lambda r: None,  # replaced below: the base accepts bearer only
        set(),
    ),
    (
        "security alternative added",
        lambda r: r["security"].append({}),
        {("security-alternative-added", C, B)},
    ),
    (
        "security scheme sent another way",
        lambda r: r["components"]["securitySchemes"].update(
            bearer={"type": "apiKey", "in": "header", "name": "X-Key"}
        ),
        {("security-scheme-changed", B, B)},
    ),
    (
        "operation removed",
        lambda r: r["paths"].pop("/pets/{pet_id}"),
        {("operation-removed", B, C)},
    ),
    (
        "operation added",
        lambda r: _set(
            r["paths"]["/pets/{pet_id}"], "delete", {"responses": {"204": {"description": "gone"}}}
        ),
        {("operation-added", C, B)},
    ),
    (
        "media type added to a request",
        lambda r: _set(
            r["paths"]["/pets"]["post"]["requestBody"]["content"], "application/x-yaml", {}
        ),
        {("media-type-added", C, B)},
    ),
    (
        "recursive schema: a field of the parent's parent",
        lambda r: schema(r, "Pet")["properties"].pop("tag"),
        {("property-removed", B, C)},
    ),
]

NO_CHANGE: list[tuple[str, Callable[[Root], None]]] = [
    (
        "schema renamed",
        lambda r: (
            _set(
                schema(r, "PetCreate")["properties"],
                "kind",
                {"type": "string", "enum": ["cat", "dog"]},
            ),
            _set(r["components"]["schemas"], "Species", r["components"]["schemas"].pop("Kind")),
            _set(prop(r, "Pet", "kind"), "$ref", "#/components/schemas/Species"),
        ),
    ),
    (
        "$ref moved inline",
        lambda r: _set(
            r["paths"]["/pets/{pet_id}"]["get"]["responses"]["200"]["content"]["application/json"],
            "schema",
            {**schema(r, "Pet"), "properties": {**schema(r, "Pet")["properties"]}},
        ),
    ),
    (
        "path parameter renamed",
        lambda r: (
            _set(r["paths"], "/pets/{id}", r["paths"].pop("/pets/{pet_id}")),
            _set(r["paths"]["/pets/{id}"]["get"]["parameters"][0], "name", "id"),
        ),
    ),
    (
        "allOf restructuring",
        lambda r: _set(
            r["components"]["schemas"],
            "Pet",
            {
                "allOf": [
                    {
                        "type": "object",
                        "required": ["id"],
                        "properties": {"id": {"type": "string"}},
                    },
                    {
                        "required": ["name"],
                        "properties": {
                            k: v for k, v in schema(r, "Pet")["properties"].items() if k != "id"
                        },
                    },
                ]
            },
        ),
    ),
    (
        "$ref with a sibling description",
        lambda r: _set(
            schema(r, "Pet")["properties"],
            "kind",
            {"$ref": "#/components/schemas/Kind", "description": "what"},
        ),
    ),
    (
        "string default on a numeric field",
        lambda r: _set(prop(r, "PetCreate", "weight"), "default", "0.5"),
    ),
    ("3.0 nullable vs 3.1 null type", lambda r: None),
    (
        "x-source and descriptions only",
        lambda r: (
            _set(prop(r, "PetCreate", "name"), "x-source", "emulator"),
            _set(prop(r, "PetCreate", "name"), "description", "the name"),
            _set(schema(r, "PetCreate"), "x-rules", []),
        ),
    ),
    (
        "X -> oneOf[X]",
        lambda r: _set(schema(r, "Pet")["properties"], "tag", {"oneOf": [{"type": "string"}]}),
    ),
]


def findings(edit: Callable[[Root], None]) -> set[tuple[str, str, str]]:
    report = compare_documents(document(BASE), edited(edit))
    return {(c.kind, c.clients, c.servers) for c in report.changes}


@pytest.mark.parametrize(
    ("name", "edit", "expected"), [c for c in CORPUS if c[2]], ids=[c[0] for c in CORPUS if c[2]]
)
def test_each_edit_gives_its_findings(
    name: str, edit: Callable[[Root], None], expected: set[Any]
) -> None:
    assert findings(edit) == expected, name


@pytest.mark.parametrize(("name", "edit"), NO_CHANGE, ids=[c[0] for c in NO_CHANGE])
def test_edits_that_change_nothing(name: str, edit: Callable[[Root], None]) -> None:
    assert findings(edit) == set(), name


def test_security_alternative_removed_breaks_clients() -> None:
    old = edited(lambda r: r["security"].append({}))
    report = compare_documents(old, document(BASE))
    assert {(c.kind, c.clients, c.servers) for c in report.changes} == {
        ("security-alternative-removed", B, C)
    }


def test_a_rename_is_one_change_with_both_names() -> None:
    report = compare_documents(
        document(BASE),
        edited(
            lambda r: _set(
                schema(r, "PetCreate")["properties"],
                "years",
                schema(r, "PetCreate")["properties"].pop("age"),
            )
        ),
    )
    (change,) = report.changes
    assert (change.old, change.new) == ("age", "years")
    assert change.location == "#/components/schemas/PetCreate/properties/years"


def test_a_shared_schema_change_is_reported_once_with_every_operation() -> None:
    report = compare_documents(
        document(BASE), edited(lambda r: schema(r, "Pet")["properties"].pop("tag"))
    )
    (change,) = report.changes
    assert change.operations == [LIST, ONE, POST]
    assert change.location == "#/components/schemas/Pet/properties/tag"


def test_a_change_in_a_schema_used_by_requests_and_responses_breaks_both() -> None:
    def shared(r: Root) -> None:
        prop(r, "PetCreate", "kind").clear()
        prop(r, "PetCreate", "kind")["$ref"] = "#/components/schemas/Kind"

    report = compare_documents(
        edited(shared), edited(lambda r: (shared(r), schema(r, "Kind")["enum"].append("fox")))
    )
    (change,) = report.changes
    assert (change.clients, change.servers) == (B, B)


def test_openapi_3_0_nullable_equals_3_1_null_type() -> None:
    def three_o(r: Root) -> None:
        r["openapi"] = "3.0.3"
        _set(prop(r, "Pet", "tag"), "nullable", True)

    report = compare_documents(
        edited(three_o), edited(lambda r: _set(prop(r, "Pet", "tag"), "type", ["string", "null"]))
    )
    assert report.changes == []


def test_paths_prefix_limits_the_scope() -> None:
    new = edited(
        lambda r: (
            r["paths"]["/pets"]["get"]["parameters"].clear(),
            r["paths"].pop("/pets/{pet_id}"),
        )
    )
    everything = compare_documents(document(BASE), new)
    scoped = compare_documents(document(BASE), new, paths="/pets/")
    assert len(everything.changes) == 2
    assert [c.kind for c in scoped.changes] == ["operation-removed"]


def test_ids_are_stable_and_semver_follows_the_findings() -> None:
    edit = lambda r: schema(r, "Pet")["properties"].pop("tag")  # noqa: E731
    first, second = (compare_documents(document(BASE), edited(edit)) for _ in range(2))
    assert [c.id for c in first.changes] == [c.id for c in second.changes]
    assert (first.semver.required, first.semver.suggested, first.semver.ok) == (
        "major",
        "2.0.0",
        False,
    )
    compatible = compare_documents(
        document(BASE),
        edited(lambda r: _set(schema(r, "Pet")["properties"], "color", {"type": "boolean"})),
    )
    assert (compatible.semver.required, compatible.semver.suggested) == ("minor", "1.1.0")


def test_where_a_change_is_located_when_a_component_moves() -> None:
    def wrap(r: Root) -> None:  # Pet.kind: $ref Kind -> oneOf [$ref Kind, integer]
        schema(r, "Pet")["properties"]["kind"] = {
            "oneOf": [{"$ref": "#/components/schemas/Kind"}, {"type": "integer"}]
        }

    changes = compare_documents(document(BASE), edited(wrap)).changes
    # (and a generator hazard: a oneOf of a string and an integer)
    (wrapped,) = [c for c in changes if c.kind != "generator-hazard-added"]
    assert (wrapped.kind, wrapped.location) == (
        "variant-added",
        "#/components/schemas/Pet/properties/kind/oneOf/1",
    )

    def inline_and_extend(r: Root) -> None:  # Pet.kind inlined, with one more value
        schema(r, "Pet")["properties"]["kind"] = {"type": "string", "enum": ["cat", "dog", "fox"]}

    (inlined,) = compare_documents(document(BASE), edited(inline_and_extend)).changes
    assert (inlined.kind, inlined.location) == ("enum-value-added", "#/components/schemas/Kind")
