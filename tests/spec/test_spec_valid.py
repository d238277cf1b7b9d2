"""`spec/openapi.yaml` is valid OpenAPI 3.1, its examples match their schemas, and its links
point at operations and parameters that exist."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
import together_rl_spec
from _spec_schema import (
    SPEC_PATH,
    Operation,
    load_spec,
    operation_by_id,
    operations,
    resolve,
    validator_for,
)
from openapi_spec_validator import validate
from openapi_spec_validator.readers import read_from_filename
from together_rl_client_kit import _spec as kit_spec
from together_rl_contract_tests import _spec as suite_spec
from together_rl_emulator.base import _spec as emulator_spec


def test_spec_is_valid_openapi_3_1() -> None:
    spec_dict, base_uri = read_from_filename(str(SPEC_PATH))
    assert str(spec_dict["openapi"]).startswith("3.1")
    validate(spec_dict, base_uri=base_uri)  # raises OpenAPIValidationError with the reason


def _media_examples() -> Iterator[tuple[str, dict[str, Any], Any]]:
    """(where, schema, value) for every example of a request body, response or parameter."""
    spec = load_spec()

    def from_content(
        where: str, content: dict[str, Any]
    ) -> Iterator[tuple[str, dict[str, Any], Any]]:
        for media_type, media in content.items():
            schema = media.get("schema")
            if schema is None:
                continue
            if "example" in media:
                yield f"{where} {media_type} example", schema, media["example"]
            for name, example in media.get("examples", {}).items():
                yield f"{where} {media_type} examples.{name}", schema, resolve(example)["value"]

    for op in operations():
        where = f"{op.method} {op.path_template}"
        body = op.spec.get("requestBody")
        if body is not None:
            yield from from_content(f"{where} requestBody", resolve(body).get("content", {}))
        for status, response in op.spec["responses"].items():
            yield from from_content(f"{where} {status}", resolve(response).get("content", {}))
        for param in op.parameters():
            for name, example in param.get("examples", {}).items():
                yield (
                    f"{where} parameter {param['name']} examples.{name}",
                    param["schema"],
                    resolve(example)["value"],
                )
            if "example" in param:
                yield (
                    f"{where} parameter {param['name']} example",
                    param["schema"],
                    param["example"],
                )
    for name, schema in spec["components"]["schemas"].items():
        for index, value in enumerate(schema.get("examples", [])):
            yield f"components.schemas.{name} examples[{index}]", schema, value
        if "example" in schema:
            yield f"components.schemas.{name} example", schema, schema["example"]


MEDIA_EXAMPLES = list(_media_examples())


def test_spec_has_request_and_response_examples() -> None:
    wheres = [where for where, _, _ in MEDIA_EXAMPLES]
    assert any("requestBody" in w for w in wheres)
    assert any(re.search(r" 200 ", w) for w in wheres)


@pytest.mark.parametrize(
    ("where", "schema", "value"), MEDIA_EXAMPLES, ids=[where for where, _, _ in MEDIA_EXAMPLES]
)
def test_spec_example_matches_its_schema(where: str, schema: dict[str, Any], value: Any) -> None:
    errors = [
        f"{list(e.absolute_path)}: {e.message}" for e in validator_for(schema).iter_errors(value)
    ]
    assert not errors, f"{where}:\n" + "\n".join(errors)


def _links() -> Iterator[tuple[str, Operation, dict[str, Any]]]:
    for op in operations():
        for status, response in op.spec["responses"].items():
            for name, link in resolve(response).get("links", {}).items():
                yield f"{op.operation_id} {status} links.{name}", op, resolve(link)


LINKS = list(_links())
RUNTIME_EXPRESSION = re.compile(
    r"^\$(url|method|statusCode|request\.(path|query|header)\.[\w-]+|request\.body(#/.*)?"
    r"|response\.header\.[\w-]+|response\.body(#/.*)?)$"
)


def test_spec_has_the_links_stateful_fuzzing_needs() -> None:
    pairs = {(source.operation_id, link.get("operationId")) for _, source, link in LINKS}
    assert ("forwardBackward", "getForwardBackwardOperation") in pairs
    assert ("startTrainingSession", "forwardBackward") in pairs


def test_schemathesis_infers_the_link_from_model_resources_to_a_session() -> None:
    """The spec leaves this link out (see test_links_pass_the_generators_parsers); schemathesis's
    dependency analysis adds it, so the stateful phase starts sessions on created resources."""
    config = schemathesis.Config.from_dict({"phases": {"stateful": {"enabled": True}}})
    schema = schemathesis.openapi.from_path(SPEC_PATH, config=config)
    schema.as_state_machine()  # injects the inferred links into the schema it holds
    created = schema.raw_schema["paths"]["/rl/model-resources"]["post"]["responses"]["200"]
    bodies = [
        link.get("requestBody")
        for link in created.get("links", {}).values()
        if link.get("operationRef") == "#/paths/~1rl~1training-sessions/post"
        or link.get("operationId") == "startTrainingSession"
    ]
    assert {"model_resources_id": "$response.body#/id"} in bodies, created.get("links")


def test_links_pass_the_generators_parsers() -> None:
    """OpenAPI Generator's parser takes a link's `requestBody` only as a string expression (an
    object is valid OpenAPI, but refused there); tests/spec/test_generators.py runs the tools."""
    for where, _, link in LINKS:
        assert isinstance(link.get("requestBody", ""), str), f"{where}: object requestBody"


@pytest.mark.parametrize(("where", "source", "link"), LINKS, ids=[where for where, _, _ in LINKS])
def test_link_targets_exist(where: str, source: Operation, link: dict[str, Any]) -> None:
    assert "operationRef" not in link, f"{where}: use operationId, not operationRef"
    target = operation_by_id(link["operationId"])  # KeyError names an unknown operationId
    target_params = {p["name"] for p in target.parameters()}
    source_params = {(p["in"], p["name"]) for p in source.parameters()}
    for name, expression in link.get("parameters", {}).items():
        bare = name.split(".", 1)[1] if "." in name else name  # `path.session_id` form
        assert bare in target_params, f"{where}: {target.operation_id} has no parameter {bare!r}"
        assert isinstance(expression, str) and RUNTIME_EXPRESSION.match(expression), (
            f"{where}: {expression!r} is not a runtime expression"
        )
        request_param = re.match(r"^\$request\.(path|query|header)\.(.+)$", expression)
        if request_param:
            assert (request_param.group(1), request_param.group(2)) in source_params, (
                f"{where}: {source.operation_id} has no {request_param.group(1)} parameter "
                f"{request_param.group(2)!r}"
            )
    body = link.get("requestBody")
    if isinstance(body, dict):
        schema = resolve(target.request_body_schema() or {})
        assert set(body) <= set(schema.get("properties", {})), (
            f"{where}: {target.operation_id}'s body has no {set(body) - set(schema['properties'])}"
        )


@pytest.mark.parametrize(("where", "source", "link"), LINKS, ids=[where for where, _, _ in LINKS])
def test_link_response_pointers_exist(where: str, source: Operation, link: dict[str, Any]) -> None:
    """`$response.body#/id` must name a property of the 2xx response that carries the link."""
    expressions = [*link.get("parameters", {}).values()]
    if isinstance(link.get("requestBody"), dict):
        expressions += list(link["requestBody"].values())
    schema = resolve(next(s for s in [source.response_schema("200")] if s is not None))
    for expression in expressions:
        pointer = re.match(r"^\$response\.body#/(\w+)$", str(expression))
        if pointer:
            assert pointer.group(1) in schema.get("properties", {}), (
                f"{where}: the 200 response has no property {pointer.group(1)!r}"
            )


def test_the_spec_package_ships_the_spec_unchanged() -> None:
    """`together_rl_spec` installs `spec_reader/together_rl_spec/openapi.yaml`: in the repository
    a link to the spec, so that editing the spec is the only step (a wheel holds the one copy)."""
    shipped = SPEC_PATH.parent.parent / "spec_reader" / "together_rl_spec" / "openapi.yaml"
    fix = "ln -sf ../../spec/openapi.yaml spec_reader/together_rl_spec/openapi.yaml"
    assert shipped.is_symlink(), fix
    assert shipped.resolve() == SPEC_PATH.resolve(), fix


def test_every_reader_gets_the_one_installed_copy() -> None:
    """The emulator, the contract suite and the client kit read the document `together_rl_spec`
    ships and parses (no copy of their own), and `python -m together_rl_spec` writes the same
    bytes."""
    shipped = SPEC_PATH.read_bytes()
    assert together_rl_spec.spec_bytes() == shipped
    assert emulator_spec.spec_bytes() is together_rl_spec.spec_bytes()
    assert emulator_spec.load_spec() is together_rl_spec.spec_document()
    assert suite_spec.spec() is kit_spec.spec() is together_rl_spec.spec_document()
    written = subprocess.run(
        [sys.executable, "-m", "together_rl_spec"], capture_output=True, check=True, timeout=60
    )
    assert written.stdout == shipped
