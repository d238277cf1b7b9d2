"""`spec/examples/` against the emulator, in-process: every invalid body is refused with 400 and
the `error.param` its file names, and every valid body is accepted, so the examples and the
emulator's validation cannot drift apart.

One emulator and one `emulator/tiny-1k` session serve the whole module (the examples' token ids
assume its 1,024-token vocabulary).
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from _spec_schema import (
    EXAMPLE_OPERATIONS,
    InvalidExample,
    ValidExample,
    component_validator,
    invalid_examples,
    operation_by_id,
    server_path_prefix,
    valid_examples,
)
from emulator_harness import EMULATOR_KEY, emulator_test_client
from together_rl_emulator import create_app

TINY_MODEL = "emulator/tiny-1k"
# `session_create.*` examples name this placeholder; the real ID is substituted before sending.
PLACEHOLDER_MODEL_RESOURCES_ID = "mr-123"

INVALID = invalid_examples()
SEMANTIC = [example for example in INVALID if example.schema_valid]
SCHEMA_INVALID = [example for example in INVALID if not example.schema_valid]
VALID = valid_examples()


@dataclass(frozen=True)
class Emulator:
    client: httpx.Client
    session_id: str
    model_resources_id: str

    def send(self, example_path_name: str, body: Any) -> httpx.Response:
        """Send `body` to the operation its example file's prefix names."""
        prefix = example_path_name.split(".", 1)[0]
        operation = operation_by_id(EXAMPLE_OPERATIONS[prefix])
        assert operation.method in ("POST", "PATCH"), operation
        path = operation.path_template.replace("{session_id}", self.session_id).replace(
            "{model_resources_id}", self.model_resources_id
        )
        headers = {}
        if any(p["name"] == "Idempotency-Key" for p in operation.parameters()):
            headers["Idempotency-Key"] = str(uuid.uuid4())
        if prefix == "session_create":
            body = _substitute(body, PLACEHOLDER_MODEL_RESOURCES_ID, self.model_resources_id)
        return self.client.request(
            operation.method, server_path_prefix() + path, json=body, headers=headers
        )


def _substitute(body: Any, placeholder: str, real: str) -> Any:
    body = copy.deepcopy(body)
    if isinstance(body, dict) and body.get("model_resources_id") == placeholder:
        body["model_resources_id"] = real
    return body


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    app = create_app(api_keys=[EMULATOR_KEY], seed=0)
    try:
        with emulator_test_client(app) as client:
            resources = client.post(
                "/v1/rl/model-resources", json={"base_model": TINY_MODEL, "lora_enabled": True}
            )
            assert resources.status_code == 200, resources.text
            resources_id = resources.json()["id"]
            session = client.post(
                "/v1/rl/training-sessions", json={"model_resources_id": resources_id}
            )
            assert session.status_code == 200, session.text
            yield Emulator(client, session.json()["id"], resources_id)
    finally:
        app.emulator.close()


def _ids(examples: list[InvalidExample] | list[ValidExample]) -> list[str]:
    return [example.path.name.removesuffix(".json") for example in examples]


def _assert_refused_at(response: httpx.Response, example: InvalidExample) -> None:
    assert response.status_code == 400, (
        f"{example.path.name}: expected 400, got {response.status_code}: {response.text[:300]}"
    )
    document = response.json()
    assert component_validator("ErrorData").is_valid(document), document
    error = document["error"]
    assert error["message"], f"{example.path.name}: error.message must say what is wrong"
    assert error["param"] == example.param, (
        f"{example.path.name}: the emulator names {error['param']!r}, the example "
        f"{example.param!r} (message: {error['message']})"
    )


@pytest.mark.parametrize("example", SEMANTIC, ids=_ids(SEMANTIC))
def test_semantic_invalid_example_is_refused_by_the_emulator_at_its_param(
    example: InvalidExample, emulator: Emulator
) -> None:
    _assert_refused_at(emulator.send(example.path.name, example.body), example)


@pytest.mark.parametrize("example", SCHEMA_INVALID, ids=_ids(SCHEMA_INVALID))
def test_schema_invalid_example_is_refused_by_the_emulator_at_its_param(
    example: InvalidExample, emulator: Emulator
) -> None:
    _assert_refused_at(emulator.send(example.path.name, example.body), example)


@pytest.mark.parametrize("example", VALID, ids=_ids(VALID))
def test_valid_example_is_accepted_by_the_emulator(
    example: ValidExample, emulator: Emulator
) -> None:
    response = emulator.send(example.path.name, example.body)
    assert response.status_code == 200, f"{example.path.name}: {response.text[:500]}"


def test_every_example_prefix_names_an_operation_taking_its_schema() -> None:
    """The two maps of `_spec_schema` agree: the operation of a prefix has that request body."""
    from _spec_schema import EXAMPLE_SCHEMAS

    assert set(EXAMPLE_OPERATIONS) == set(EXAMPLE_SCHEMAS)
    for prefix, operation_id in EXAMPLE_OPERATIONS.items():
        schema = operation_by_id(operation_id).request_body_schema()
        assert schema == {"$ref": f"#/components/schemas/{EXAMPLE_SCHEMAS[prefix]}"}, prefix
