"""Conformance of the spec with a client nobody here wrote: the official SDK `together==3.1.1`.

Every request the SDK sends (through an `httpx.MockTransport`) is matched to a spec operation
and checked against it: path and method, bearer auth, header parameters (`Idempotency-Key`),
query parameters and the JSON body. A field the SDK sends that the spec lacks fails, because
the spec's request schemas refuse unknown properties and unknown query parameters are refused
here. The MockTransport answers with the spec's response examples (or, where the spec has
none, with bodies checked against the response schema first) and the parsed SDK objects must
carry their values.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import numpy as np
import pytest
import together
from _spec_schema import (
    Operation,
    match_operation,
    operation_by_id,
    operations,
    resolve,
    valid_examples,
    validator_for,
)
from together.post_training import SessionClient

API_KEY = "test-key"
BASE_URL = "http://testserver"
SESSION_ID = "sess-1"
MODEL_RESOURCES_ID = "mr-1"
OPERATION_ID = "550e8400-e29b-41d4-a716-446655440000"

# ----------------------------------------------------------------------------- responses


def _spec_example(operation_id: str, name: str) -> dict[str, Any]:
    media = resolve(operation_by_id(operation_id).spec["responses"]["200"])["content"][
        "application/json"
    ]
    value: dict[str, Any] = resolve(media["examples"][name])["value"]
    return value


FB_PENDING = _spec_example("forwardBackward", "pending")
FB_COMPLETED = _spec_example("getForwardBackwardOperation", "completed")
FB_FAILED = _spec_example("getForwardBackwardOperation", "failed")

# The spec has no response examples for these operations; these bodies are checked against the
# response schemas (test_fixture_responses_match_the_spec) before the SDK parses them.
SESSION = {
    "id": SESSION_ID,
    "base_model": "emulator/tiny-1k",
    "created_at": "2026-05-01T12:00:00Z",
    "created_by": "user-1",
    "inference_checkpoints": [],
    "training_checkpoints": [
        {"id": "ckpt-1", "created_at": "2026-05-01T12:30:00Z", "step": "100"},
    ],
    "metadata": {"wandb": {"project": "rl"}},
    "model_resources_id": MODEL_RESOURCES_ID,
    "policy_state": {
        "applied_weights_version": 3,
        "pending_publish": False,
        "target_weights_version": "3",
        "trainer_step": 100,
    },
    "status": "TRAINING_SESSION_STATUS_RUNNING",
    "step": "100",
    "updated_at": "2026-05-01T12:30:00Z",
    "display_name": "grpo run",
    "lora_config": {"rank": 16, "alpha": 32},
}
STOPPED_SESSION = {**SESSION, "status": "TRAINING_SESSION_STATUS_STOPPED"}
SESSIONS_LIST = {
    "data": [SESSION],
    "meta": {"has_more": True, "limit": 1, "next_cursor": SESSION_ID},
}
MODEL_RESOURCES = {
    "id": MODEL_RESOURCES_ID,
    "base_model": "emulator/tiny-1k",
    "compute_config": {"num_generator_replicas": 0, "gpu_type": "B200-SXM"},
    "created_at": "2026-05-01T11:00:00Z",
    "created_by": "user-1",
    "inactive_timeout": 3600,
    "lora_enabled": True,
    "optimizer_config": {"adam": {}},
    "status": "MODEL_RESOURCES_STATUS_READY",
    "status_details": {"queue_position": 0},
    "updated_at": "2026-05-01T11:00:05Z",
}
SUPPORTED_MODELS = {
    "data": [
        {
            "base_model": "emulator/tiny-1k",
            "default_gpu_type": "B200-SXM",
            "compute_configs": [
                {
                    "gpu_type": "B200-SXM",
                    "trainer_config": {
                        "full": {"max_batch_size": 64, "max_seq_length": 4096},
                        "lora": {"max_batch_size": 64, "max_rank": 64, "max_seq_length": 4096},
                    },
                    "generator_config": {
                        "context_length": 4096,
                        "sampling_defaults": {"max_tokens": 256, "temperature": 1.0},
                    },
                }
            ],
        }
    ]
}

RESPONSES: dict[str, dict[str, Any]] = {
    "createModelResources": MODEL_RESOURCES,
    "getModelResources": MODEL_RESOURCES,
    "getSupportedModels": SUPPORTED_MODELS,
    "startTrainingSession": SESSION,
    "listTrainingSessions": SESSIONS_LIST,
    "getTrainingSession": SESSION,
    "stopTrainingSession": STOPPED_SESSION,
    "forwardBackward": FB_PENDING,
    "getForwardBackwardOperation": FB_COMPLETED,
}

# ----------------------------------------------------------------------------- capture + check


@dataclass
class Captured:
    operation: Operation
    request: httpx.Request
    body: Any


@dataclass
class SpecServer:
    """A MockTransport handler that checks every request against the spec and answers it."""

    responses: dict[str, Any] = field(default_factory=lambda: dict(RESPONSES))
    captured: list[Captured] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        # The SDK turns an exception raised here into a bare APIConnectionError, so a violation
        # is answered as a 400 whose message the SDK's BadRequestError shows, and kept for the
        # fixture's teardown check.
        try:
            operation, body = check_request(request)
        except (AssertionError, LookupError) as violation:
            self.violations.append(str(violation))
            error = {"message": f"SPEC VIOLATION: {violation}", "type": "invalid_request_error"}
            return httpx.Response(400, json={"error": error}, headers={"x-should-retry": "false"})
        self.captured.append(Captured(operation, request, body))
        return httpx.Response(200, json=self.responses[operation.operation_id])

    def only(self, operation_id: str) -> Captured:
        assert [c.operation.operation_id for c in self.captured] == [operation_id]
        return self.captured[0]


def _schema_errors(schema: dict[str, Any], value: Any) -> list[str]:
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
        for e in validator_for(schema).iter_errors(value)
    ]


def check_request(request: httpx.Request) -> tuple[Operation, Any]:
    """Validate one captured request against the spec; returns its operation and JSON body."""
    operation, path_params = match_operation(request.method, request.url.path)
    where = f"{request.method} {request.url.path} ({operation.operation_id})"
    problems: list[str] = []

    assert request.headers.get("authorization") == f"Bearer {API_KEY}", f"{where}: no bearer auth"

    params = operation.parameters()
    for param in (p for p in params if p["in"] == "path"):
        problems += [
            f"path {param['name']}: {e}"
            for e in _schema_errors(param["schema"], path_params[param["name"]])
        ]
    for param in (p for p in params if p["in"] == "header"):
        value = request.headers.get(param["name"])
        if value is None:
            if param.get("required"):
                problems.append(f"required header {param['name']} missing")
            continue
        problems += [f"header {param['name']}: {e}" for e in _schema_errors(param["schema"], value)]

    query_params = {p["name"]: p for p in params if p["in"] == "query"}
    for name in request.url.params:
        if name not in query_params:
            problems.append(f"query parameter {name!r} is not in the spec")
            continue
        schema = resolve(query_params[name]["schema"])
        values = request.url.params.get_list(name)
        if schema.get("type") == "array":
            assert query_params[name].get("style", "form") == "form"
            explode = query_params[name].get("explode", True)
            items = values if explode else [item for value in values for item in value.split(",")]
            problems += [f"query {name}: {e}" for e in _schema_errors(schema, items)]
        else:
            assert len(values) == 1, f"{where}: query {name} repeated"
            value: Any = int(values[0]) if schema.get("type") == "integer" else values[0]
            problems += [f"query {name}: {e}" for e in _schema_errors(schema, value)]

    body: Any = None
    body_schema = operation.request_body_schema()
    if body_schema is None:
        if request.content:
            problems.append(f"the spec defines no body but the SDK sent {request.content[:200]!r}")
    else:
        assert request.headers.get("content-type", "").startswith("application/json"), where
        body = json.loads(request.content)
        problems += [f"body {e}" for e in _schema_errors(body_schema, body)]

    assert not problems, f"{where} does not match the spec:\n  " + "\n  ".join(problems)
    return operation, body


@pytest.fixture
def server() -> Iterator[SpecServer]:
    spec_server = SpecServer()
    yield spec_server
    assert not spec_server.violations, "\n".join(spec_server.violations)


def _sync_client(server: SpecServer) -> together.Together:
    http_client = httpx.Client(transport=httpx.MockTransport(server))
    return together.Together(
        api_key=API_KEY, base_url=BASE_URL, http_client=http_client, max_retries=0
    )


@pytest.fixture
def client(server: SpecServer) -> Iterator[together.Together]:
    sdk = _sync_client(server)
    yield sdk
    sdk.close()


def test_fixture_responses_match_the_spec() -> None:
    for operation_id, body in RESPONSES.items():
        schema = operation_by_id(operation_id).response_schema("200")
        assert schema is not None
        assert not _schema_errors(schema, body), (operation_id, _schema_errors(schema, body))


# ----------------------------------------------------------------------------- nine endpoints


def _create_model_resources(c: together.Together) -> Any:
    return c.post_training.model_resources.create(
        base_model="emulator/tiny-1k",
        compute_config={"gpu_type": "B200-SXM", "num_generator_replicas": 0},
        inactive_timeout=3600,
        lora_enabled=True,
        optimizer_config={"muon": {"scaling_strategy": "MUON_SCALING_STRATEGY_MATCH_ADAM"}},
    )


def _start_session(c: together.Together) -> Any:
    return c.post_training.sessions.create(
        model_resources_id=MODEL_RESOURCES_ID,
        display_name="grpo run",
        load_optimizer=True,
        lora_config={"rank": 16, "alpha": 32, "dropout": 0.0, "seed": 7, "train_unembed": True},
        metadata={"wandb": {"project": "rl", "run_name": "grpo-1"}},
    )


def _list_sessions(c: together.Together) -> Any:
    return c.post_training.sessions.list(
        after="sess-0",
        limit=1,
        status=["TRAINING_SESSION_STATUS_RUNNING", "TRAINING_SESSION_STATUS_CREATING"],
    )


def _forward_backward(c: together.Together) -> Any:
    body = json.loads((_example("forward_backward.ppo")).read_text())
    return c.post_training.operations.forward_backward(
        SESSION_ID, idempotency_key=str(uuid.uuid4()), **body
    )


ENDPOINT_CALLS: list[tuple[str, Callable[[together.Together], Any]]] = [
    ("createModelResources", _create_model_resources),
    ("getModelResources", lambda c: c.post_training.model_resources.retrieve(MODEL_RESOURCES_ID)),
    ("getSupportedModels", lambda c: c.post_training.supported_models.get()),
    ("startTrainingSession", _start_session),
    ("listTrainingSessions", _list_sessions),
    ("getTrainingSession", lambda c: c.post_training.sessions.retrieve(SESSION_ID)),
    ("stopTrainingSession", lambda c: c.post_training.sessions.stop(SESSION_ID)),
    ("forwardBackward", _forward_backward),
    (
        "getForwardBackwardOperation",
        lambda c: c.post_training.operations.retrieve_forward_backward(
            OPERATION_ID, session_id=SESSION_ID
        ),
    ),
]


def test_the_nine_endpoints_are_all_covered() -> None:
    assert {op.operation_id for op in operations()} == {name for name, _ in ENDPOINT_CALLS}


@pytest.mark.parametrize(
    ("operation_id", "call"), ENDPOINT_CALLS, ids=[n for n, _ in ENDPOINT_CALLS]
)
def test_sdk_request_matches_the_spec(
    operation_id: str,
    call: Callable[[together.Together], Any],
    client: together.Together,
    server: SpecServer,
) -> None:
    result = call(client)
    captured = server.only(operation_id)
    assert result is not None
    # The SDK parsed the answer: its objects carry the values the server sent.
    sent = RESPONSES[operation_id]
    if "id" in sent:
        assert result.id == sent["id"]
    if "status" in sent:
        assert result.status == sent["status"]
    assert captured.operation.method in {"GET", "POST"}


def test_list_sends_status_comma_joined(client: together.Together, server: SpecServer) -> None:
    page = _list_sessions(client)
    request = server.only("listTrainingSessions").request
    assert (
        request.url.params["status"]
        == "TRAINING_SESSION_STATUS_RUNNING,TRAINING_SESSION_STATUS_CREATING"
    )
    assert request.url.params["limit"] == "1"
    assert page.meta is not None and page.meta.next_cursor == SESSION_ID
    assert [s.id for s in page.data] == [SESSION_ID]


def test_session_create_body_is_what_the_spec_describes(
    client: together.Together, server: SpecServer
) -> None:
    session = _start_session(client)
    body = server.only("startTrainingSession").body
    assert body["model_resources_id"] == MODEL_RESOURCES_ID
    assert body["lora_config"]["seed"] == 7
    assert session.resources_id == MODEL_RESOURCES_ID  # the SDK's name for `model_resources_id`
    assert session.policy_state.target_weights_version == "3"
    assert session.training_checkpoints[0].step == "100"


def test_model_resources_parsed_values(client: together.Together, server: SpecServer) -> None:
    resources = _create_model_resources(client)
    assert server.only("createModelResources").body["base_model"] == "emulator/tiny-1k"
    assert resources.status == "MODEL_RESOURCES_STATUS_READY"
    assert resources.compute_config.num_generator_replicas == 0
    models = client.post_training.supported_models.get()
    limits = models.data[0].compute_configs[0].trainer_config.full
    assert limits is not None and limits.max_batch_size == 64


def test_list_filters_the_sdk_offers() -> None:
    with _sync_client(SpecServer()) as client:
        client.post_training.sessions.list(created_by="me", model_resources_id=MODEL_RESOURCES_ID)


def test_a_field_the_spec_lacks_fails_the_check() -> None:
    """The check has teeth: an extra body field, an unknown query parameter, an empty or spaced
    Idempotency-Key and a path outside the spec are all refused."""
    body = json.loads(_example("forward_backward.cross_entropy").read_text())
    server = SpecServer()
    with _sync_client(server) as client:
        fb = client.post_training.operations.forward_backward
        with pytest.raises(together.BadRequestError, match="payload_id"):
            fb(SESSION_ID, idempotency_key="k-1", extra_body={"payload_id": "p-1"}, **body)
        with pytest.raises(together.BadRequestError, match="Idempotency-Key"):
            fb(SESSION_ID, idempotency_key="has space", **body)
        with pytest.raises(together.BadRequestError, match="verbose"):
            client.post_training.sessions.retrieve(SESSION_ID, extra_query={"verbose": "1"})
        with pytest.raises(together.BadRequestError, match="limit"):
            client.post_training.sessions.list(limit=500)
        with pytest.raises(together.BadRequestError, match="no spec path"):
            client.post_training.checkpoints.list()
        with pytest.raises(together.BadRequestError, match="POST is not an operation"):
            client.post_training.model_resources.estimate_cost(base_model="emulator/tiny-1k")
    assert len(server.violations) == 6 and not server.captured


def test_idempotency_key_header_schema() -> None:
    schema = next(
        p for p in operation_by_id("forwardBackward").parameters() if p["in"] == "header"
    )["schema"]
    assert not _schema_errors(schema, str(uuid.uuid4()))
    assert not _schema_errors(schema, "stainless-python-retry-" + "x" * 200)
    for bad in ("", "has space", "tab\there", "é", "x" * 256):
        assert _schema_errors(schema, bad), bad


# ----------------------------------------------------------------------------- forward-backward


def _example(name: str) -> Any:
    from _spec_schema import VALID_EXAMPLES_DIR

    return VALID_EXAMPLES_DIR / f"{name}.json"


FB_EXAMPLES = [e for e in valid_examples() if e.schema == "ForwardBackwardBody"]
LOSS_EXAMPLES = {
    "LOSS_TYPE_CROSS_ENTROPY": "forward_backward.cross_entropy",
    "LOSS_TYPE_GRPO": "forward_backward.grpo_beta_reference_logprobs",
    "LOSS_TYPE_IMPORTANCE_SAMPLING": "forward_backward.importance_sampling",
    "LOSS_TYPE_PPO": "forward_backward.ppo",
    "LOSS_TYPE_CISPO": "forward_backward.cispo",
    "LOSS_TYPE_DRO": "forward_backward.dro",
    "LOSS_TYPE_DPPO": "forward_backward.dppo",
}
FLAG_SETS: list[dict[str, bool]] = [
    {},
    {"forward_only": True},
    {"return_loss_fn_outputs": True},
    {"forward_only": True, "return_loss_fn_outputs": True},
    {"forward_only": False, "return_loss_fn_outputs": False},
]


def _flag_id(flags: dict[str, bool]) -> str:
    return "+".join(f"{k}={v}" for k, v in flags.items()) or "no_flags"


@pytest.mark.parametrize("flags", FLAG_SETS, ids=[_flag_id(f) for f in FLAG_SETS])
@pytest.mark.parametrize("loss_type", list(LOSS_EXAMPLES))
def test_forward_backward_every_loss_type_and_flag(
    loss_type: str, flags: dict[str, bool], client: together.Together, server: SpecServer
) -> None:
    example = json.loads(_example(LOSS_EXAMPLES[loss_type]).read_text())
    key = str(uuid.uuid4())
    operation = client.post_training.operations.forward_backward(
        SESSION_ID, idempotency_key=key, samples=example["samples"], loss=example["loss"], **flags
    )
    captured = server.only("forwardBackward")
    assert captured.request.headers["idempotency-key"] == key
    assert captured.body == {**example, **flags}
    assert captured.body["loss"]["type"] == loss_type
    assert operation.id == FB_PENDING["id"] and operation.status == FB_PENDING["status"]


@pytest.mark.parametrize(
    "example", FB_EXAMPLES, ids=[e.path.name.removesuffix(".json") for e in FB_EXAMPLES]
)
def test_forward_backward_every_valid_example(
    example: Any, client: together.Together, server: SpecServer
) -> None:
    client.post_training.operations.forward_backward(
        SESSION_ID, idempotency_key=str(uuid.uuid4()), **example.body
    )
    assert server.only("forwardBackward").body == example.body


# ----------------------------------------------------------------------------- response parsing


def test_sdk_parses_the_completed_example(client: together.Together, server: SpecServer) -> None:
    server.responses["getForwardBackwardOperation"] = FB_COMPLETED
    op = client.post_training.operations.retrieve_forward_backward(
        OPERATION_ID, session_id=SESSION_ID
    )
    assert op.status == "TRAINING_OPERATION_STATUS_COMPLETED"
    assert op.output is not None
    assert op.output.loss == FB_COMPLETED["output"]["loss"]
    assert op.output.metrics == FB_COMPLETED["output"]["metrics"]
    sent_outputs = FB_COMPLETED["output"]["loss_fn_outputs"]
    assert len(op.output.loss_fn_outputs or []) == len(sent_outputs)
    logprobs = (op.output.loss_fn_outputs or [])[0].tensors["logprobs"]
    assert logprobs.data == sent_outputs[0]["tensors"]["logprobs"]["data"]
    assert logprobs.dtype == "float32"


def test_sdk_parses_the_failed_example(client: together.Together, server: SpecServer) -> None:
    server.responses["getForwardBackwardOperation"] = FB_FAILED
    op = client.post_training.operations.retrieve_forward_backward(
        OPERATION_ID, session_id=SESSION_ID
    )
    assert op.status == "TRAINING_OPERATION_STATUS_FAILED"
    assert op.output is None
    assert op.error is not None
    assert op.error.code == FB_FAILED["error"]["code"]
    assert op.error.message == FB_FAILED["error"]["message"]


def test_every_spec_response_example_parses_in_the_sdk(
    client: together.Together, server: SpecServer
) -> None:
    parsed = 0
    for op in operations():
        media = resolve(op.spec["responses"]["200"]).get("content", {}).get("application/json", {})
        for name, example in media.get("examples", {}).items():
            value = resolve(example)["value"]
            server.responses[op.operation_id] = value
            call = dict(ENDPOINT_CALLS)[op.operation_id]
            result = call(client)
            assert result.to_dict() == value, f"{op.operation_id} example {name}"
            parsed += 1
    assert parsed >= 3


# ----------------------------------------------------------------------------- hand-written layer


def _handwritten_session(server: SpecServer) -> SessionClient:
    http_client = httpx.AsyncClient(transport=httpx.MockTransport(server))
    sdk = together.AsyncTogether(
        api_key=API_KEY, base_url=BASE_URL, http_client=http_client, max_retries=0
    )
    return SessionClient(SESSION_ID, sdk, _has_generator=False)


HANDWRITTEN_LOSSES: list[dict[str, Any]] = [
    {"type": "cross_entropy"},
    {
        "type": "grpo",
        "grpo_params": {"beta": 0.1, "agg_type": "GRPO_LOSS_AGGREGATION_TYPE_TOKEN_MEAN"},
    },
    {"type": "importance_sampling"},
    {"type": "ppo", "ppo_params": {"clip_low_threshold": 0.8, "clip_high_threshold": 1.2}},
    {"type": "cispo", "cispo_params": {"clip_high_threshold": 4.0}},
    {"type": "dro", "dro_params": {"beta": 0.05}},
    {"type": "LOSS_TYPE_DPPO", "dppo_params": {"delta_low": 0.1}},
]


def _handwritten_sample(loss_type: str) -> dict[str, Any]:
    """Inputs as an RL loop builds them: numpy arrays and plain lists, coerced by the SDK."""
    inputs: dict[str, Any] = {"target_tokens": np.array([254, 981, 3], dtype=np.int64)}
    if loss_type == "cross_entropy":
        inputs["weights"] = np.array([0.0, 1.0, 1.0], dtype=np.float32)
    else:
        inputs["logprobs"] = np.array([-0.5, -1.0, -2.0], dtype=np.float32)
        inputs["advantages"] = [0.0, 1.0, 1.0]
        inputs["mask"] = np.array([False, True, True])
        if loss_type == "grpo":
            inputs["reference_logprobs"] = np.array([-0.4, -1.1, -2.1], dtype=np.float64)
    return {
        "model_input": {
            "chunks": [{"encoded_text": {"tokens": [17, 254]}}, {"encoded_text": {"tokens": [981]}}]
        },
        "loss_fn_inputs": inputs,
        "routed_experts_key": "rk-1",
    }


@pytest.mark.parametrize(
    "loss", HANDWRITTEN_LOSSES, ids=[loss["type"] for loss in HANDWRITTEN_LOSSES]
)
def test_handwritten_trainer_forward_backward(loss: dict[str, Any], server: SpecServer) -> None:
    short = loss["type"].removeprefix("LOSS_TYPE_").lower()
    session = _handwritten_session(server)
    try:
        result = session.trainer.forward_backward(
            samples=[_handwritten_sample(short)],
            loss=loss,
            return_loss_fn_outputs=True,
            interval=0.001,
        )
    finally:
        session.detach()
    kinds = [c.operation.operation_id for c in server.captured]
    assert kinds[0] == "forwardBackward" and set(kinds[1:]) <= {"getForwardBackwardOperation"}
    body = server.captured[0].body
    assert body["loss"]["type"] == "LOSS_TYPE_" + short.upper()
    assert body["return_loss_fn_outputs"] is True and "forward_only" not in body
    inputs = body["samples"][0]["loss_fn_inputs"]
    assert inputs["target_tokens"] == {"data": [254, 981, 3], "dtype": "int64"}
    if "mask" in inputs:
        assert inputs["mask"] == {"data": [0, 1, 1], "dtype": "int64"}
    uuid.UUID(server.captured[0].request.headers["idempotency-key"])
    assert result.loss == FB_COMPLETED["output"]["loss"]
    assert result.metrics == FB_COMPLETED["output"]["metrics"]


def test_handwritten_trainer_forward_sets_forward_only(server: SpecServer) -> None:
    session = _handwritten_session(server)
    try:
        result = session.trainer.forward(
            samples=[_handwritten_sample("ppo")], loss={"type": "ppo"}, interval=0.001
        )
    finally:
        session.detach()
    body = server.captured[0].body
    assert body["forward_only"] is True and body["return_loss_fn_outputs"] is True
    assert result.loss_fn_outputs is not None
    assert result.loss_fn_outputs[0].tensors["logprobs"].data == [0.0, -1.42, -2.31]
