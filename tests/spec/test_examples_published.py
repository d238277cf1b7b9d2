"""The API reference's request examples, replayed against the emulator as published.

Every request example of the spec whose `x-source` names a reference page (`docs:<page>`) is
one published by docs.together.ai/reference/<page>. Each is sent, with only its placeholder IDs
replaced by resources, sessions and checkpoints created here, and must be:

- accepted (200, and an operation then COMPLETED), or
- refused with 400 at the `param` and with the words listed in `PUBLISHED` below, when the page
  contradicts itself (a docs error: docs/wire-facts.md, "The API reference's examples"), or
- an expected failure (`pytest.xfail(strict=True)`) naming the feature it waits for, so that
  the day the feature lands the test flips and the entry must become `accepted`.

A published example with no entry here, or an entry with no example, fails the first test.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx
import pytest
from _spec_schema import Operation, operations, resolve, server_path_prefix
from emulator_harness import EMULATOR_KEY, emulator_test_client, wait_until_terminal
from together_rl_emulator import create_app

TINY_MODEL = "emulator/tiny-1k"
#: The placeholder UUID of the reference pages' ID fields.
PLACEHOLDER_ID = "123e4567-e89b-12d3-a456-426614174000"


@dataclass(frozen=True)
class Expected:
    """What replaying one published example must give."""

    outcome: Literal["accepted", "refused", "waits"]
    param: str | None = None  # refused: `error.param`
    words: tuple[str, ...] = ()  # refused: parts of `error.message`
    reason: str = ""  # refused: the page's contradiction; waits: the feature it waits for
    also: tuple[tuple[str, Any], ...] = field(default=())  # refused: a second problem, see below


#: (operationId, example name) -> what its replay gives. The reasons are the docs errors.
PUBLISHED: dict[tuple[str, str], Expected] = {
    ("createModelResources", "reference"): Expected("accepted"),
    ("extendModelResourcesExpiry", "reference"): Expected("accepted"),
    ("startTrainingSession", "reference"): Expected("accepted"),
    ("forwardBackward", "reference"): Expected(
        "refused",
        param="samples[0].loss_fn_inputs.target_tokens",
        words=(
            "is required by LOSS_TYPE_GRPO",
            "lacks target_tokens, logprobs, advantages and reference_logprobs "
            "(when loss.grpo_params.beta > 0)",
        ),
        reason="the sample has `loss_fn_inputs: {}`, but GRPO needs target_tokens, logprobs "
        "and advantages, and reference_logprobs as its beta is 0.1",
    ),
    ("customForwardBackward", "reference"): Expected(
        "refused",
        param="samples[0].loss_fn_inputs.target_tokens",
        words=("is required by custom-forward-backward",),
        reason="the sample has `loss_fn_inputs: {}` (target_tokens is required), and its "
        "gradient has five values for a three-token sample",
        also=(("gradients[0].data", "has 5 values but samples[0] has 3 tokens"),),
    ),
    ("optimStep", "reference"): Expected("accepted"),
    ("sample", "reference"): Expected("accepted"),
}


def _published_examples() -> list[tuple[Operation, str, dict[str, Any]]]:
    found = []
    for operation in operations():
        body = operation.spec.get("requestBody")
        if body is None:
            continue
        media = resolve(body).get("content", {}).get("application/json", {})
        for name, example in (media.get("examples") or {}).items():
            example = resolve(example)
            if str(example.get("x-source", "")).startswith("docs:"):
                found.append((operation, name, example))
    return found


EXAMPLES = _published_examples()


def test_every_published_example_has_its_expected_replay() -> None:
    keys = {(operation.operation_id, name) for operation, name, _ in EXAMPLES}
    assert keys == set(PUBLISHED), (
        f"published examples without an entry: {sorted(keys - set(PUBLISHED))}; "
        f"entries without an example: {sorted(set(PUBLISHED) - keys)}"
    )
    for (operation_id, name), expected in PUBLISHED.items():
        assert expected.outcome == "accepted" or expected.reason, (operation_id, name)


def test_every_published_example_names_its_page() -> None:
    for operation, name, example in EXAMPLES:
        page = example["x-source"].removeprefix("docs:")
        assert f"docs.together.ai/reference/{page}" in example.get("description", ""), (
            operation.operation_id,
            name,
        )


@dataclass
class Target:
    """The emulator and what the replays substitute for the pages' placeholder IDs. Operations
    run on `session_id` (an `emulator/tiny-1k` LoRA session), except those `sessions` names: the
    sample on a catalog model's session (its text stops need the model's tokenizer) and the
    optimizer step on a Muon resource's session (its `muon_params`)."""

    client: httpx.Client
    resources_id: str
    session_id: str
    checkpoint_id: str
    sessions: dict[str, str] = field(default_factory=dict)

    def session(self, operation: Operation) -> str:
        return self.sessions.get(operation.operation_id, self.session_id)

    def path(self, operation: Operation) -> str:
        path = operation.path_template.replace("{session_id}", self.session(operation))
        return server_path_prefix() + path.replace("{model_resources_id}", self.resources_id)

    def send(self, operation: Operation, body: Any) -> httpx.Response:
        headers = {}
        if any(p["name"] == "Idempotency-Key" for p in operation.parameters()):
            headers["Idempotency-Key"] = str(uuid.uuid4())
        return self.client.request(
            operation.method, self.path(operation), json=body, headers=headers
        )

    def substituted(self, body: Any) -> Any:
        body = copy.deepcopy(body)
        if body.get("model_resources_id") == PLACEHOLDER_ID:
            body["model_resources_id"] = self.resources_id
        if body.get("resume_from_checkpoint_id") == PLACEHOLDER_ID:
            body["resume_from_checkpoint_id"] = self.checkpoint_id
        return body

    def completed(self, operation: Operation, answer: httpx.Response) -> dict[str, Any]:
        """The operation `answer` submitted, once terminal (a plain resource answer as is)."""
        document: dict[str, Any] = answer.json()
        if "/operations/" not in operation.path_template:
            return document
        get = f"{self.path(operation)}/{document['id']}"
        return wait_until_terminal(lambda: self.client.get(get).json(), timeout_s=60)


def _session(client: httpx.Client, resources: dict[str, Any]) -> str:
    answer = client.post("/v1/rl/model-resources", json=resources)
    assert answer.status_code == 200, answer.text
    session = client.post(
        "/v1/rl/training-sessions", json={"model_resources_id": answer.json()["id"]}
    )
    assert session.status_code == 200, session.text
    session_id: str = session.json()["id"]
    return session_id


def _catalog_model(client: httpx.Client) -> str:
    """The first published model of the emulator's catalog (not one of its test models)."""
    models = client.get("/v1/rl/supported-models").json()["data"]
    return str(next(m["base_model"] for m in models if not m["base_model"].startswith("emulator/")))


def _operation_done(client: httpx.Client, path: str) -> dict[str, Any]:
    answer = client.post(path, headers={"Idempotency-Key": str(uuid.uuid4())})
    assert answer.status_code == 200, answer.text
    operation_id = answer.json()["id"]
    return wait_until_terminal(lambda: client.get(f"{path}/{operation_id}").json())


@pytest.fixture(scope="module")
def target() -> Iterator[Target]:
    app = create_app(api_keys=[EMULATOR_KEY], seed=0)
    try:
        with emulator_test_client(app) as client:
            resources = client.post("/v1/rl/model-resources", json={"base_model": TINY_MODEL})
            assert resources.status_code == 200, resources.text
            resources_id = resources.json()["id"]
            session = client.post(
                "/v1/rl/training-sessions", json={"model_resources_id": resources_id}
            )
            assert session.status_code == 200, session.text
            session_id = session.json()["id"]
            saved = _operation_done(
                client,
                f"/v1/rl/training-sessions/{session_id}/operations/training-checkpoint",
            )
            assert saved["status"] == "TRAINING_OPERATION_STATUS_COMPLETED", saved
            checkpoint_id = saved["output"]["checkpoint"]["id"]
            sessions = {
                "sample": _session(client, {"base_model": _catalog_model(client)}),
                "optimStep": _session(
                    client, {"base_model": TINY_MODEL, "optimizer_config": {"muon": {}}}
                ),
            }
            yield Target(client, resources_id, session_id, checkpoint_id, sessions)
    finally:
        app.emulator.close()


def _params() -> list[Any]:
    """One case per published example; those waiting for a feature as strict expected failures,
    so the day the feature lands they fail as XPASS until their entry says `accepted`."""
    cases = []
    for operation, name, example in EXAMPLES:
        expected = PUBLISHED.get((operation.operation_id, name), Expected("accepted"))
        marks = []
        if expected.outcome == "waits":
            marks.append(pytest.mark.xfail(strict=True, reason=f"waits for {expected.reason}"))
        cases.append(
            pytest.param(
                operation, name, example, id=f"{operation.operation_id}-{name}", marks=marks
            )
        )
    return cases


@pytest.mark.parametrize(("operation", "name", "example"), _params())
def test_published_example_replays_as_expected(
    operation: Operation, name: str, example: dict[str, Any], target: Target
) -> None:
    expected = PUBLISHED[(operation.operation_id, name)]
    answer = target.send(operation, target.substituted(example["value"]))
    if expected.outcome in ("accepted", "waits"):
        assert answer.status_code == 200, answer.text
        done = target.completed(operation, answer)
        assert done.get("status", "") != "TRAINING_OPERATION_STATUS_FAILED", done
        return
    _assert_refused(answer, expected.param, expected.words)
    for param, words in expected.also:
        # The page's next problem, once the first is mended as the message says.
        mended = _mended(example["value"], expected.param)
        _assert_refused(target.send(operation, mended), param, (words,))


def _assert_refused(answer: httpx.Response, param: str | None, words: tuple[str, ...]) -> None:
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["param"] == param, error
    for part in words:
        assert part in error["message"], error


def _mended(body: dict[str, Any], missing: str | None) -> dict[str, Any]:
    """`body` with the tensor the refusal named added (one slot per token of its sample)."""
    assert missing is not None and missing.endswith(".loss_fn_inputs.target_tokens"), missing
    body = copy.deepcopy(body)
    for sample in body["samples"]:
        tokens = [t for c in sample["model_input"]["chunks"] for t in c["encoded_text"]["tokens"]]
        sample["loss_fn_inputs"]["target_tokens"] = {"data": [*tokens[1:], 0], "dtype": "int64"}
    return body
