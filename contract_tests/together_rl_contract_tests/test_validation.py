"""Validation: every invalid example of spec/examples/invalid gets 400 naming its field.

Each file holds ``body``, ``param`` (the expected ``error.param``), ``schema_valid`` (whether the
body passes the JSON Schema and breaks only a semantic rule) and ``description``. The file name's
prefix says which operation it is for.
"""

from __future__ import annotations

import json
import uuid
from importlib.resources.abc import Traversable
from typing import Any

import pytest

from together_rl_contract_tests._http import (
    CUSTOM_FORWARD_BACKWARD,
    OPTIM_STEP,
    SAMPLE,
    WEIGHTS_SYNC,
    TargetClient,
)
from together_rl_contract_tests._spec import invalid_examples

FB = "POST /rl/training-sessions/{session_id}/operations/forward-backward"
#: Operation kinds other than forward-backward, by example-file prefix (forward_backward is
#: handled apart: it may go forward-only to --session-id on a non-emulator target).
KIND_PREFIXES = {
    "optim_step": OPTIM_STEP,
    "sample": SAMPLE,
    "weights_sync": WEIGHTS_SYNC,
    "custom_forward_backward": CUSTOM_FORWARD_BACKWARD,
}
OPERATIONS = {
    "forward_backward": FB,
    "model_resources_create": "POST /rl/model-resources",
    "session_create": "POST /rl/training-sessions",
    "session_update": "PATCH /rl/training-sessions/{session_id}",
    "model_resources_extend_expiry": "POST /rl/model-resources/{model_resources_id}/extend-expiry",
    "rollouts_estimate": "POST /rl/rollouts/estimate",
    **{
        prefix: f"POST /rl/training-sessions/{{session_id}}/operations/{kind}"
        for prefix, kind in KIND_PREFIXES.items()
    },
}
#: Examples whose token ids assume the emulator's tiny vocabulary (1,024 tokens).
VOCABULARY_DEPENDENT = "vocab"


def _examples() -> list[Any]:
    params = []
    for path in invalid_examples():
        prefix = path.name.split(".", 1)[0]
        operation = OPERATIONS.get(prefix, "-")
        marks = [pytest.mark.operation(operation), *_requirements(path, prefix)]
        params.append(pytest.param(path, id=path.name.removesuffix(".json"), marks=marks))
    return params


def _requirements(path: Traversable, prefix: str) -> list[Any]:
    """What an example needs of the target, declared so that a dry run knows it too."""
    example = json.loads(path.read_text(encoding="utf-8"))
    marks = []
    if VOCABULARY_DEPENDENT in path.name:
        marks.append(pytest.mark.emulator_only("assumes the emulator's 1,024-token vocabulary"))
    if example.get("emulator_only"):
        marks.append(
            pytest.mark.emulator_only(
                "a rule of the emulator only (the live API accepts this body)"
            )
        )
    if prefix in KIND_PREFIXES:
        marks.append(pytest.mark.requests_fixture("own_session_id"))
    elif prefix == "forward_backward":
        marks.append(pytest.mark.requests_fixture("session_id"))
        if not isinstance(example["body"], dict) or "forward_only" in path.name:
            marks.append(pytest.mark.needs_mutations("would not be forward-only"))
    elif prefix in ("model_resources_create", "session_create"):
        marks.append(pytest.mark.needs_mutations("a create request"))
    elif prefix == "session_update":
        marks.append(pytest.mark.requests_fixture("own_session_id"))
    elif prefix == "model_resources_extend_expiry":
        marks.append(pytest.mark.requests_fixture("model_resources"))
    return marks


def _check_error(response: Any, example: dict[str, Any], findings: list[str]) -> None:
    assert response.status_code == 400, (
        f"{example['description']}: expected 400, got {response.status_code}: {response.text[:300]}"
    )
    error = response.json()["error"]
    assert error["message"], "error.message must say what is wrong"
    param, expected = error.get("param"), example["param"]
    if param == expected:
        return
    # A more precise path inside the named field (e.g. `...weights.data[1]` for `...weights`)
    # still names the field; it is accepted and reported.
    more_precise = isinstance(param, str) and param.startswith((f"{expected}.", f"{expected}["))
    assert more_precise, (
        f"{example['description']}: error.param {param!r} != {expected!r} "
        f"(message: {error['message']})"
    )
    findings.append(
        f"validation: error.param {param!r} is more precise than the example's {expected!r}"
    )


@pytest.mark.parametrize("path", _examples())
def test_invalid_example_is_400_naming_the_field(
    path: Traversable, client: TargetClient, request: pytest.FixtureRequest, findings: list[str]
) -> None:
    example = json.loads(path.read_text(encoding="utf-8"))
    body = example["body"]
    target = client.target
    kind = path.name.split(".", 1)[0]
    if kind in KIND_PREFIXES:
        # Needs mutations (a session of the suite's own); the guard would refuse it otherwise.
        own_session_id = request.getfixturevalue("own_session_id")
        response = client.submit_operation(own_session_id, KIND_PREFIXES[kind], body)
        _check_error(response, example, findings)
        return
    if kind == "rollouts_estimate":  # creates nothing: any target, no session
        _check_error(client.post("/v1/rl/rollouts/estimate", json=body), example, findings)
        return
    session_id = request.getfixturevalue("session_id")
    if kind == "forward_backward":
        if not target.may_mutate:
            body = dict(body, forward_only=True)
        response = client.post(
            f"/v1/rl/training-sessions/{session_id}/operations/forward-backward",
            json=body,
            headers={"Idempotency-Key": str(uuid.uuid4())},
        )
    elif kind in ("model_resources_create", "session_create"):
        route = (
            "/v1/rl/model-resources"
            if kind == "model_resources_create"
            else "/v1/rl/training-sessions"
        )
        response = client.post(route, json=body)
    elif kind == "session_update":
        own_session_id = request.getfixturevalue("own_session_id")
        response = client.request("PATCH", f"/v1/rl/training-sessions/{own_session_id}", json=body)
    elif kind == "model_resources_extend_expiry":
        resources = request.getfixturevalue("model_resources")
        response = client.post(f"/v1/rl/model-resources/{resources['id']}/extend-expiry", json=body)
    else:
        pytest.fail(f"no operation known for example file prefix {kind!r}")
    _check_error(response, example, findings)


@pytest.mark.operation(FB)
@pytest.mark.needs_mutations("not a forward-only body")
@pytest.mark.parametrize(
    "raw",
    [b"{", b"", b"[]", b"null", b'"samples"', b'{"samples": [}', b"\xff\xfe"],
    ids=["truncated", "empty", "array", "null", "string", "broken-array", "not-utf8"],
)
def test_malformed_body_is_a_clean_400(client: TargetClient, session_id: str, raw: bytes) -> None:
    response = client.post(
        f"/v1/rl/training-sessions/{session_id}/operations/forward-backward",
        content=raw,
        headers={"Idempotency-Key": str(uuid.uuid4())},
    )
    assert response.status_code == 400, f"{raw!r}: {response.status_code} {response.text[:300]}"
    assert response.json()["error"]["message"]


@pytest.mark.operation(FB)
def test_nothing_is_stored_for_an_invalid_request(
    client: TargetClient, session_id: str, probe_body: dict[str, Any]
) -> None:
    """An invalid request does not consume its Idempotency-Key."""
    key = str(uuid.uuid4())
    broken = dict(probe_body, samples=[])
    refused = client.submit_forward_backward(session_id, broken, key)
    assert refused.status_code == 400, refused.text
    accepted = client.submit_forward_backward(session_id, probe_body, key)
    assert accepted.status_code == 200, accepted.text
