"""The lint of the spec's forms for generators: `spec/openapi.yaml` holds none of the forms that
generated Go, Java, Rust and TypeScript clients read wrong (`together_rl_api_diff`'s
`generator_hazards`), and bringing any of them back is named, both by the lint and, as
breaking for clients, by `together-rl-api-diff`."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from _spec_schema import load_spec
from together_rl_api_diff import Document, compare_documents, generator_hazards

Edit = Callable[[dict[str, Any]], None]


def _schemas(spec: dict[str, Any]) -> dict[str, Any]:
    schemas: dict[str, Any] = spec["components"]["schemas"]
    return schemas


def _default_on_lora_enabled(spec: dict[str, Any]) -> None:
    _schemas(spec)["ModelResourcesCreate"]["properties"]["lora_enabled"]["default"] = True


def _int64_as_one_of(spec: dict[str, Any]) -> None:
    _schemas(spec)["Int64Value"] = {
        "oneOf": [{"type": "integer", "format": "int64"}, {"type": "string"}]
    }


def _closed_status(spec: dict[str, Any]) -> None:
    status = {"$ref": "#/components/schemas/OperationStatus"}
    _schemas(spec)["ForwardBackwardOperation"]["properties"]["status"] = status


def _open_status_closed(spec: dict[str, Any]) -> None:
    value = _schemas(spec)["OperationStatusValue"]
    value["enum"] = list(_schemas(spec)["OperationStatus"]["enum"])


def _number_without_format(spec: dict[str, Any]) -> None:
    del _schemas(spec)["AdamParams"]["properties"]["eps"]["format"]


def _int32_shape(spec: dict[str, Any]) -> None:
    del _schemas(spec)["TensorData"]["properties"]["shape"]["items"]["format"]


def _servers_apart(spec: dict[str, Any]) -> None:
    spec["servers"][1]["url"] = "http://127.0.0.1:8765"


HAZARD_EDITS: list[tuple[Edit, str]] = [
    (
        _default_on_lora_enabled,
        "hazard: default on optional request field ModelResourcesCreate.lora_enabled",
    ),
    (_int64_as_one_of, "hazard: int64 as a oneOf of integer and string at Int64Value"),
    (
        _closed_status,
        "hazard: closed enum where clients must read unknown values at "
        "ForwardBackwardOperation.status",
    ),
    (
        _open_status_closed,
        "hazard: closed enum where clients must read unknown values at OptimStepOperation.status",
    ),
    (_number_without_format, "hazard: number without format (float32 in Go) at AdamParams.eps"),
    (_int32_shape, "hazard: integer items without format int64 at TensorData.shape[]"),
    (_servers_apart, "hazard: servers with different paths: /, /v1"),
]


def test_the_spec_has_no_generator_hazard() -> None:
    found = [str(hazard) for hazard in generator_hazards(load_spec())]
    assert found == [], "\n".join(found)


@pytest.mark.parametrize(("edit", "named"), HAZARD_EDITS, ids=[e.__name__ for e, _ in HAZARD_EDITS])
def test_a_hazard_brought_back_is_named(edit: Edit, named: str) -> None:
    spec = copy.deepcopy(load_spec())
    edit(spec)
    found = [str(hazard) for hazard in generator_hazards(spec)]
    assert named in found, found


@pytest.mark.parametrize(("edit", "named"), HAZARD_EDITS, ids=[e.__name__ for e, _ in HAZARD_EDITS])
def test_the_api_diff_reports_a_hazard_brought_back_as_breaking_clients(
    edit: Edit, named: str
) -> None:
    spec = load_spec()
    edited = copy.deepcopy(spec)
    edit(edited)
    report = compare_documents(Document("old", spec), Document("new", edited))
    hazards = [c for c in report.changes if c.kind == "generator-hazard-added"]
    assert hazards and all(c.clients == "breaking" for c in hazards), report.changes
    kind = next(h.kind for h in generator_hazards(edited) if str(h) == named)
    assert kind in {c.detail for c in hazards}


def test_a_new_place_with_a_hazard_is_the_lints_not_a_break() -> None:
    """A property added with a hazard breaks no code written against the old bindings."""
    spec = load_spec()
    edited = copy.deepcopy(spec)
    _schemas(edited)["AdamParams"]["properties"]["new_knob"] = {"type": "number"}
    report = compare_documents(Document("old", spec), Document("new", edited))
    assert not [c for c in report.changes if c.kind == "generator-hazard-added"]
    assert "hazard: number without format (float32 in Go) at AdamParams.new_knob" in [
        str(h) for h in generator_hazards(edited)
    ]
