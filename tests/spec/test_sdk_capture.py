"""Conformance of the spec with a client nobody here wrote: the official SDK `together==3.1.1`.

Every request the SDK sends (through an `httpx.MockTransport`) is matched to a spec operation
and checked against it: path and method, bearer auth, header parameters (`Idempotency-Key`),
query parameters and the JSON body. A field the SDK sends that the spec lacks fails, because
the spec's request schemas refuse unknown properties and unknown query parameters are refused
here. The MockTransport answers with the spec's response examples (or, where the spec has
none, with bodies checked against the response schema first) and the parsed SDK objects must
carry their values.

Every operation of the spec is exercised: the typed raw methods, and the SDK's hand-written
`Trainer`/`Generator`, whose large-payload path (bodies over 0.5 MiB) is the only caller of the
two payload operations. Its presigned upload and download URLs are not in the spec: the mock
answers them as object storage does, and checks that they are sent without Authorization.
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
from _sdk_responses import (
    ALTERNATIVE_RESPONSES,
    API_KEY,
    BASE_URL,
    CHECKPOINT_ID,
    DOWNLOAD_URL,
    FB_COMPLETED,
    FB_FAILED,
    FB_OFFLOADED,
    FB_PENDING,
    LARGE_PAYLOAD_BYTES,
    MODEL_RESOURCES_ID,
    OPERATION_ID,
    OPTIM_STEP_COMPLETED,
    PENDING,
    RESPONSES,
    RESULT_PAYLOAD_ID,
    SAMPLE_OFFLOADED,
    SAMPLE_RESULT,
    SESSION_ID,
    STORAGE_HOST,
    UPLOAD_PAYLOAD_ID,
    UPLOAD_URL,
    WEIGHTS_SYNC_COMPLETED,
)
from _spec_request_check import check_request
from _spec_request_check import schema_errors as _schema_errors
from _spec_schema import (
    Operation,
    fast_component_validator,
    operation_by_id,
    operations,
    resolve,
    valid_examples,
)
from ci_policy import import_required

together = import_required("together", "3.1.1")
from together.post_training import SessionClient  # noqa: E402

# ----------------------------------------------------------------------------- capture + check


@dataclass
class Captured:
    operation: Operation
    request: httpx.Request
    body: Any


@dataclass
class SpecServer:
    """A MockTransport handler that checks every request against the spec and answers it.

    Requests to `STORAGE_HOST` (the presigned payload URLs) go to a stand-in object store:
    a PUT stores its bytes under the URL, a GET returns `downloads[url]`.
    """

    responses: dict[str, Any] = field(default_factory=lambda: dict(RESPONSES))
    captured: list[Captured] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    uploads: dict[str, bytes] = field(default_factory=dict)
    downloads: dict[str, bytes] = field(default_factory=dict)
    storage_requests: list[httpx.Request] = field(default_factory=list)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        # The SDK turns an exception raised here into a bare APIConnectionError, so a violation
        # is answered as a 400 whose message the SDK's BadRequestError shows, and kept for the
        # fixture's teardown check.
        try:
            if request.url.host == STORAGE_HOST:
                return self._storage(request)
            operation, body = check_request(request)
        except (AssertionError, LookupError) as violation:
            self.violations.append(str(violation))
            error = {"message": f"SPEC VIOLATION: {violation}", "type": "invalid_request_error"}
            return httpx.Response(400, json={"error": error}, headers={"x-should-retry": "false"})
        self.captured.append(Captured(operation, request, body))
        return httpx.Response(200, json=self.responses[operation.operation_id])

    def _storage(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        assert "authorization" not in request.headers, (
            f"{request.method} {url}: a presigned URL must be called without Authorization"
        )
        self.storage_requests.append(request)
        if request.method == "PUT":
            assert url == UPLOAD_URL, f"PUT to {url}, not to the upload_url given"
            self.uploads[url] = request.content
            return httpx.Response(200)
        assert request.method == "GET" and url in self.downloads, f"{request.method} {url}"
        return httpx.Response(200, content=self.downloads[url])

    def only(self, operation_id: str) -> Captured:
        assert [c.operation.operation_id for c in self.captured] == [operation_id]
        return self.captured[0]

    def operation_ids(self) -> list[str]:
        return [c.operation.operation_id for c in self.captured]


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
    for operation_id, body in [*RESPONSES.items(), *ALTERNATIVE_RESPONSES]:
        schema = operation_by_id(operation_id).response_schema("200")
        assert schema is not None
        assert not _schema_errors(schema, body), (operation_id, _schema_errors(schema, body))


# ----------------------------------------------------------------------------- every operation


def _create_model_resources(c: together.Together) -> Any:
    return c.post_training.model_resources.create(
        base_model="emulator/tiny-1k",
        base_weights_ref="together://ml_abc123@rv_2",  # the reference page's pattern
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


def _submit(method_name: str, example: str) -> Callable[[together.Together], Any]:
    """A raw `operations.<method_name>` call with a valid example as its arguments."""

    def call(c: together.Together) -> Any:
        body = json.loads(_example(example).read_text())
        method = getattr(c.post_training.operations, method_name)
        return method(SESSION_ID, idempotency_key=str(uuid.uuid4()), **body)

    return call


def _retrieve(method_name: str) -> Callable[[together.Together], Any]:
    def call(c: together.Together) -> Any:
        method = getattr(c.post_training.operations, method_name)
        return method(OPERATION_ID, session_id=SESSION_ID)

    return call


def _update_session(c: together.Together) -> Any:
    return c.post_training.sessions.update(
        SESSION_ID, display_name="", metadata={"wandb": {"project": "rl", "run_name": ""}}
    )


def _checkpoint(method_name: str) -> Callable[[together.Together], Any]:
    """A raw checkpoint submission: an Idempotency-Key and no body."""

    def call(c: together.Together) -> Any:
        method = getattr(c.post_training.operations, method_name)
        return method(SESSION_ID, idempotency_key=str(uuid.uuid4()))

    return call


def _list_checkpoints(c: together.Together) -> Any:
    return c.post_training.checkpoints.list(
        after="ckpt-0",
        base_model="emulator/tiny-1k",
        limit=2,
        session_id=SESSION_ID,
        type="CHECKPOINT_TYPE_INFERENCE",
    )


def _list_model_resources(c: together.Together) -> Any:
    return c.post_training.model_resources.list(
        after="mr-0",
        created_by="me",
        limit=20,
        status=["MODEL_RESOURCES_STATUS_READY", "MODEL_RESOURCES_STATUS_STOPPED"],
    )


def _estimate_cost(c: together.Together) -> Any:
    return c.post_training.model_resources.estimate_cost(
        base_model="emulator/tiny-1k",
        compute_config={"gpu_type": "B200-SXM", "num_generator_replicas": 1},
        inactive_timeout=600,
        lora_enabled=True,
        optimizer_config={"adam": {}},
    )


# The typed API has no payload methods: the hand-written layer calls the client's generic `post`
# (together/post_training/_payloads.py), as these do; the large-payload tests below run that layer.
def _payload_upload_url(c: together.Together) -> Any:
    path = f"/v1/rl/training-sessions/{SESSION_ID}/payloads/upload-url"
    return c.post(path, cast_to=object)


def _payload_download_url(c: together.Together) -> Any:
    path = f"/v1/rl/training-sessions/{SESSION_ID}/payloads/{RESULT_PAYLOAD_ID}/download-url"
    return c.post(path, cast_to=object)


# The rollout estimate is in the API reference and in no SDK release yet: a user of 3.1.1 sends
# it through the client's generic `post`, as these do.
def _estimate_rollouts(c: together.Together) -> Any:
    body = {
        "base_model": "Qwen/Qwen3-8B",
        "episodes": 1000,
        "concurrency": 64,
        "prompt_tokens": 512,
        "turns": 3,
        "generated_tokens_per_turn": 256,
        "added_tokens_per_turn": 384,
    }
    return c.post("/v1/rl/rollouts/estimate", body=body, cast_to=object)


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
    ("optimStep", _submit("optim_step", "optim_step.adam_full")),
    ("getOptimStepOperation", _retrieve("retrieve_optim_step")),
    ("sample", _submit("sample", "sample.sampling_params")),
    ("getSampleOperation", _retrieve("retrieve_sample")),
    ("weightsSync", _submit("weights_sync", "weights_sync.synchronous")),
    ("getWeightsSyncOperation", _retrieve("retrieve_weights_sync")),
    ("customForwardBackward", _submit("custom_forward_backward", "custom_forward_backward.mask")),
    ("getCustomForwardBackwardOperation", _retrieve("retrieve_custom_forward_backward")),
    ("createPayloadUploadUrl", _payload_upload_url),
    ("createPayloadDownloadUrl", _payload_download_url),
    ("updateTrainingSession", _update_session),
    ("createInferenceCheckpoint", _checkpoint("create_inference_checkpoint")),
    ("getInferenceCheckpointOperation", _retrieve("retrieve_inference_checkpoint")),
    ("createTrainingCheckpoint", _checkpoint("create_training_checkpoint")),
    ("getTrainingCheckpointOperation", _retrieve("retrieve_training_checkpoint")),
    ("listCheckpoints", _list_checkpoints),
    ("getCheckpoint", lambda c: c.post_training.checkpoints.retrieve(CHECKPOINT_ID)),
    (
        "downloadCheckpoint",
        lambda c: c.post_training.checkpoints.download(
            CHECKPOINT_ID, variant="CHECKPOINT_VARIANT_ADAPTER"
        ),
    ),
    ("listModelResources", _list_model_resources),
    ("estimateModelResourcesCost", _estimate_cost),
    ("estimateRollouts", _estimate_rollouts),
    (
        "extendModelResourcesExpiry",
        lambda c: c.post_training.model_resources.extend_expiry(MODEL_RESOURCES_ID, seconds=1800),
    ),
    (
        "stopModelResources",
        lambda c: c.post_training.model_resources.stop(MODEL_RESOURCES_ID, force=True),
    ),
]

# The official SDK's RL surface: every public method of its `post_training` resources, and the
# spec operation it calls. `test_every_sdk_rl_method_has_a_spec_operation` enumerates the SDK by
# introspection, so a method added in a later SDK fails until it is listed here (and specified).
SDK_RL_METHODS: dict[str, str] = {
    "sessions.create": "startTrainingSession",
    "sessions.list": "listTrainingSessions",
    "sessions.retrieve": "getTrainingSession",
    "sessions.update": "updateTrainingSession",
    "sessions.stop": "stopTrainingSession",
    "operations.forward_backward": "forwardBackward",
    "operations.retrieve_forward_backward": "getForwardBackwardOperation",
    "operations.custom_forward_backward": "customForwardBackward",
    "operations.retrieve_custom_forward_backward": "getCustomForwardBackwardOperation",
    "operations.optim_step": "optimStep",
    "operations.retrieve_optim_step": "getOptimStepOperation",
    "operations.sample": "sample",
    "operations.retrieve_sample": "getSampleOperation",
    "operations.weights_sync": "weightsSync",
    "operations.retrieve_weights_sync": "getWeightsSyncOperation",
    "operations.create_inference_checkpoint": "createInferenceCheckpoint",
    "operations.retrieve_inference_checkpoint": "getInferenceCheckpointOperation",
    "operations.create_training_checkpoint": "createTrainingCheckpoint",
    "operations.retrieve_training_checkpoint": "getTrainingCheckpointOperation",
    "checkpoints.list": "listCheckpoints",
    "checkpoints.retrieve": "getCheckpoint",
    "checkpoints.download": "downloadCheckpoint",
    "supported_models.get": "getSupportedModels",
    "model_resources.create": "createModelResources",
    "model_resources.list": "listModelResources",
    "model_resources.retrieve": "getModelResources",
    "model_resources.estimate_cost": "estimateModelResourcesCost",
    "model_resources.extend_expiry": "extendModelResourcesExpiry",
    "model_resources.stop": "stopModelResources",
}
# Resources of `client.post_training` left out of the spec on purpose, with the reason.
SDK_RESOURCES_NOT_SPECIFIED = {
    "prepare_for_fp4_inference": (
        "the /v1/shaping group (FP4 quantization jobs for serving): shares the SDK's"
        " post_training namespace but is not part of the RL training API"
    ),
}


def _sdk_rl_methods() -> dict[str, Callable[..., Any]]:
    """`<resource>.<method>` -> bound method, for every public method of every resource of the
    official SDK's `client.post_training` (the raw HTTP methods, not the hand-written layer)."""
    from together._resource import SyncAPIResource

    methods: dict[str, Callable[..., Any]] = {}
    with _sync_client(SpecServer()) as sdk:
        post_training = sdk.post_training
        for resource_name in dir(type(post_training)):
            resource = getattr(post_training, resource_name)
            if resource_name.startswith("_") or not isinstance(resource, SyncAPIResource):
                continue
            for name in dir(type(resource)):
                if name.startswith("_") or name.startswith("with_"):
                    continue
                member = getattr(resource, name)
                if callable(member):
                    methods[f"{resource_name}.{name}"] = member
    return methods


def test_every_sdk_rl_method_has_a_spec_operation() -> None:
    """Every method of the official SDK's post_training resources is specified (or its resource
    is listed, with the reason, as out of the RL API), and each names an operation that exists."""
    introspected = _sdk_rl_methods()
    assert len(introspected) > len(SDK_RL_METHODS)  # the enumeration found the shaping group
    unspecified = {
        m for m in introspected if m.split(".")[0] not in SDK_RESOURCES_NOT_SPECIFIED
    } - set(SDK_RL_METHODS)
    assert not unspecified, f"SDK methods with no spec operation: {sorted(unspecified)}"
    assert set(SDK_RL_METHODS) <= set(introspected), set(SDK_RL_METHODS) - set(introspected)
    spec_ids = {op.operation_id for op in operations()}
    assert set(SDK_RL_METHODS.values()) <= spec_ids
    # Every spec operation is reached by an SDK method, except the two payload operations the
    # SDK's hand-written layer calls through its generic `post`, and the rollout estimate, which
    # the API reference publishes and no SDK release has yet.
    assert spec_ids - set(SDK_RL_METHODS.values()) == {
        "createPayloadUploadUrl",
        "createPayloadDownloadUrl",
        "estimateRollouts",
    }


@pytest.mark.parametrize("method_name", sorted(SDK_RL_METHODS))
def test_sdk_rl_method_calls_its_spec_operation(method_name: str, server: SpecServer) -> None:
    """The call of `ENDPOINT_CALLS` for the operation a method is mapped to goes through that
    very method: the map above is checked against the wire, not only against names."""
    operation_id = SDK_RL_METHODS[method_name]
    resource_name, name = method_name.split(".")
    sdk = _sync_client(server)
    called: list[str] = []
    resource = getattr(sdk.post_training, resource_name)
    original = getattr(resource, name)

    def spy(*args: Any, **kwargs: Any) -> Any:
        called.append(method_name)
        return original(*args, **kwargs)

    try:
        setattr(resource, name, spy)
        dict(ENDPOINT_CALLS)[operation_id](sdk)
    finally:
        sdk.close()
    assert called == [method_name]
    assert server.only(operation_id)


def test_every_operation_has_an_sdk_call() -> None:
    calls = [name for name, _ in ENDPOINT_CALLS]
    assert len(calls) == len(set(calls))
    assert {op.operation_id for op in operations()} == set(calls)


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
    parsed = result if isinstance(result, dict) else result.to_dict(mode="json")
    assert parsed == sent
    assert captured.operation.method in {"GET", "POST", "PATCH"}


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
    server = SpecServer()
    with _sync_client(server) as client:
        page = client.post_training.sessions.list(
            created_by="me", model_resources_id=MODEL_RESOURCES_ID
        )
    sent = server.only("listTrainingSessions").request.url.params
    assert sent.get("created_by") == "me"
    assert sent.get("model_resources_id") == MODEL_RESOURCES_ID
    assert [s.id for s in page.data] == [s["id"] for s in RESPONSES["listTrainingSessions"]["data"]]


def test_a_field_the_spec_lacks_fails_the_check() -> None:
    """The check has teeth: an extra body field, an unknown query parameter, an empty or spaced
    Idempotency-Key and a path outside the spec are all refused."""
    body = json.loads(_example("forward_backward.cross_entropy").read_text())
    server = SpecServer()
    with _sync_client(server) as client:
        fb = client.post_training.operations.forward_backward
        with pytest.raises(together.BadRequestError, match="priority"):
            fb(SESSION_ID, idempotency_key="k-1", extra_body={"priority": 1}, **body)
        with pytest.raises(together.BadRequestError, match="Idempotency-Key"):
            fb(SESSION_ID, idempotency_key="has space", **body)
        with pytest.raises(together.BadRequestError, match="verbose"):
            client.post_training.sessions.retrieve(SESSION_ID, extra_query={"verbose": "1"})
        with pytest.raises(together.BadRequestError, match="limit"):
            client.post_training.sessions.list(limit=500)
        with pytest.raises(together.BadRequestError, match="no spec path"):
            client.post_training.prepare_for_fp4_inference.list()
        with pytest.raises(together.BadRequestError, match="DELETE is not an operation"):
            client.delete(f"/v1/rl/model-resources/{MODEL_RESOURCES_ID}", cast_to=object)
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
            parsed_value = result if isinstance(result, dict) else result.to_dict(mode="json")
            assert parsed_value == value, f"{op.operation_id} example {name}"
            parsed += 1
    assert parsed >= 3


# ----------------------------------------------------------------------------- hand-written layer


def _handwritten_session(server: SpecServer, *, generator: bool = False) -> SessionClient:
    http_client = httpx.AsyncClient(transport=httpx.MockTransport(server))
    sdk = together.AsyncTogether(
        api_key=API_KEY, base_url=BASE_URL, http_client=http_client, max_retries=0
    )
    return SessionClient(SESSION_ID, sdk, _has_generator=generator)


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


# ------------------------------------------------------------ the other operation kinds: raw

OPERATION_EXAMPLES = [
    e
    for e in valid_examples()
    if e.schema in ("OptimStepBody", "SampleBody", "WeightsSyncBody", "CustomForwardBackwardBody")
]
RAW_METHODS = {
    "OptimStepBody": ("optim_step", "optimStep"),
    "SampleBody": ("sample", "sample"),
    "WeightsSyncBody": ("weights_sync", "weightsSync"),
    "CustomForwardBackwardBody": ("custom_forward_backward", "customForwardBackward"),
}


@pytest.mark.parametrize(
    "example",
    OPERATION_EXAMPLES,
    ids=[e.path.name.removesuffix(".json") for e in OPERATION_EXAMPLES],
)
def test_every_valid_operation_example_is_sent_unchanged_by_the_raw_method(
    example: Any, client: together.Together, server: SpecServer
) -> None:
    """Each valid example, passed as keyword arguments to the SDK's typed method, goes out as
    the same JSON: the spec's body and the SDK's parameters are the same shape."""
    method_name, operation_id = RAW_METHODS[example.schema]
    key = str(uuid.uuid4())
    method = getattr(client.post_training.operations, method_name)
    operation = method(SESSION_ID, idempotency_key=key, **example.body)
    captured = server.only(operation_id)
    assert captured.body == example.body
    assert captured.request.headers["idempotency-key"] == key
    assert operation.id == PENDING["id"] and operation.status == PENDING["status"]


def test_sdk_sends_muon_params_the_spec_describes(
    client: together.Together, server: SpecServer
) -> None:
    """The spec describes what the SDK sends for Muon (resources with optimizer_config.muon)."""
    muon = {
        "adam": {"learning_rate": 0.0001},
        "grad_clip_norm": 1.0,
        "learning_rate": 0.02,
        "momentum": 0.95,
        "newton_schulz_steps": 5,
        "weight_decay": 0.01,
    }
    client.post_training.operations.optim_step(
        SESSION_ID, idempotency_key=str(uuid.uuid4()), muon_params=muon
    )
    assert server.only("optimStep").body == {"muon_params": muon}


def test_sdk_parses_completed_operations_of_every_kind(
    client: together.Together, server: SpecServer
) -> None:
    ops = client.post_training.operations
    step = ops.retrieve_optim_step(OPERATION_ID, session_id=SESSION_ID)
    assert step.output is not None and step.output.step == "101"
    synced = ops.retrieve_weights_sync(OPERATION_ID, session_id=SESSION_ID)
    assert synced.output is not None and synced.output.weights_version == "4"
    custom = ops.retrieve_custom_forward_backward(OPERATION_ID, session_id=SESSION_ID)
    assert custom.status == "TRAINING_OPERATION_STATUS_COMPLETED" and custom.output is not None
    sampled = ops.retrieve_sample(OPERATION_ID, session_id=SESSION_ID)
    assert sampled.output is not None
    result = sampled.output.results[0]
    assert [s.stop_reason for s in result.sequences] == ["STOP_REASON_STOP", "STOP_REASON_LENGTH"]
    assert result.sequences[1].tokens == ["640", "3", "981"]
    assert result.policy_segments[0].version == 3
    assert result.topk_prompt_logprobs is not None
    assert result.topk_prompt_logprobs[1].token_ids == [254, 7]


# -------------------------------------------------------- the other operation kinds: Trainer


def _run_handwritten(
    server: SpecServer, action: Callable[[SessionClient], Any], *, generator: bool = False
) -> Any:
    session = _handwritten_session(server, generator=generator)
    try:
        return action(session)
    finally:
        session.detach()


def test_handwritten_trainer_optim_step(server: SpecServer) -> None:
    adam = json.loads(_example("optim_step.adam_full").read_text())["adam_params"]
    result = _run_handwritten(
        server, lambda s: s.trainer.optim_step(adam_params=adam, interval=0.001)
    )
    assert server.operation_ids() == ["optimStep", "getOptimStepOperation"]
    assert server.captured[0].body == {"adam_params": adam}
    uuid.UUID(server.captured[0].request.headers["idempotency-key"])
    assert result.step == OPTIM_STEP_COMPLETED["output"]["step"]


def test_handwritten_trainer_optim_step_with_session_defaults(server: SpecServer) -> None:
    _run_handwritten(server, lambda s: s.trainer.optim_step(interval=0.001))
    assert server.captured[0].body == {}


SYNC_TYPES = resolve({"$ref": "#/components/schemas/WeightSyncType"})["enum"]


@pytest.mark.parametrize("sync_type", SYNC_TYPES)
def test_handwritten_trainer_weights_sync(sync_type: str, server: SpecServer) -> None:
    result = _run_handwritten(
        server, lambda s: s.trainer.weights_sync(weight_sync_type=sync_type, interval=0.001)
    )
    assert server.operation_ids() == ["weightsSync", "getWeightsSyncOperation"]
    assert server.captured[0].body == {"weight_sync_type": sync_type}
    assert result.weights_version == WEIGHTS_SYNC_COMPLETED["output"]["weights_version"]


def test_handwritten_trainer_custom_forward_backward(server: SpecServer) -> None:
    sample = {
        "model_input": {"chunks": [{"encoded_text": {"tokens": np.array([17, 254, 981])}}]},
        "loss_fn_inputs": {
            "target_tokens": np.array([254, 981, 3], dtype=np.int64),
            "mask": np.array([False, True, True]),
        },
    }
    gradient = {"data": np.array([0.0, -0.5, 0.25], dtype=np.float32), "dtype": "D_TYPE_FLOAT32"}
    _run_handwritten(
        server,
        lambda s: s.trainer.custom_forward_backward(
            samples=[sample], gradients=[gradient], interval=0.001
        ),
    )
    assert server.operation_ids() == ["customForwardBackward", "getCustomForwardBackwardOperation"]
    body = server.captured[0].body
    assert body["gradients"] == [{"data": [0.0, -0.5, 0.25], "dtype": "D_TYPE_FLOAT32"}]
    assert body["samples"][0]["loss_fn_inputs"] == {
        "target_tokens": {"data": [254, 981, 3], "dtype": "int64"},
        "mask": {"data": [0, 1, 1], "dtype": "int64"},
    }
    assert "payload_id" not in body


PROMPT = {"chunks": [{"encoded_text": {"tokens": [17, 254, 981]}}]}
SAMPLING = json.loads(_example("sample.sampling_params").read_text())["sampling_params"]


def test_handwritten_generator_sample(server: SpecServer) -> None:
    result = _run_handwritten(
        server,
        lambda s: s.generator.sample(
            PROMPT,
            num_samples=2,
            sampling_params=SAMPLING,
            prompt_logprobs=True,
            topk_prompt_logprobs=2,
            interval=0.001,
        ),
        generator=True,
    )
    assert server.operation_ids() == ["sample", "getSampleOperation"]
    assert server.captured[0].body == {
        "model_inputs": [PROMPT],
        "num_samples": 2,
        "sampling_params": SAMPLING,
        "prompt_logprobs": True,
        "topk_prompt_logprobs": 2,
    }
    assert result.to_dict(mode="json") == SAMPLE_RESULT


# ----------------------------------------------------------------------------- large payloads


def _long_sample(index: int, n_tokens: int) -> dict[str, Any]:
    tokens = (np.arange(n_tokens, dtype=np.int64) * 37 + index) % 1024
    return {
        "model_input": {
            "chunks": [
                {"encoded_text": {"tokens": tokens[:-1]}},
                {"encoded_text": {"tokens": tokens[-1:]}},
            ]
        },
        "loss_fn_inputs": {
            "target_tokens": (tokens + 1) % 1024,
            "weights": np.where(np.arange(n_tokens) % 4 == 0, 0.5, 1.0).astype(np.float32),
        },
    }


LARGE_BATCH = 8
LARGE_TOKENS = 8_000  # 8 x 8,000 tokens: about 0.75 MiB of compact JSON


def _assert_shrunk(body: dict[str, Any]) -> None:
    """The stand-in body: every numeric array cut to 8 values, tokens within the same budget."""
    for sample in body.get("samples", []):
        tokens = [t for c in sample["model_input"]["chunks"] for t in c["encoded_text"]["tokens"]]
        assert len(tokens) <= 8
        assert all(len(t["data"]) <= 8 for t in sample["loss_fn_inputs"].values())
    assert all(len(g["data"]) <= 8 for g in body.get("gradients", []))


def _uploaded(server: SpecServer, schema: str) -> dict[str, Any]:
    """The uploaded body: compact JSON of the whole request, valid for the operation."""
    raw = server.uploads[UPLOAD_URL]
    assert len(raw) > LARGE_PAYLOAD_BYTES
    body: dict[str, Any] = json.loads(raw)
    assert raw == json.dumps(body, separators=(",", ":")).encode()
    errors = [e.message for e in fast_component_validator(schema).iter_errors(body)]
    assert not errors, errors[:5]
    return body


def _offloaded_fb_outputs() -> list[dict[str, Any]]:
    return [
        {"tensors": {"logprobs": {"data": [-0.5] * LARGE_TOKENS, "dtype": "float32"}}}
        for _ in range(LARGE_BATCH)
    ]


def _large_forward_backward(server: SpecServer) -> Any:
    """Trainer.forward_backward over 0.5 MiB with an offloaded result: the SDK uploads the body,
    POSTs a stand-in with `payload_id` and downloads `loss_fn_outputs`."""
    server.responses["getForwardBackwardOperation"] = FB_OFFLOADED
    server.downloads[DOWNLOAD_URL] = json.dumps(
        {"loss_fn_outputs": _offloaded_fb_outputs()}
    ).encode()
    samples = [_long_sample(i, LARGE_TOKENS) for i in range(LARGE_BATCH)]
    return _run_handwritten(
        server,
        lambda s: s.trainer.forward_backward(
            samples=samples,
            loss={"type": "cross_entropy"},
            return_loss_fn_outputs=True,
            interval=0.001,
        ),
    )


def test_handwritten_trainer_forward_backward_over_half_a_mebibyte(server: SpecServer) -> None:
    result = _large_forward_backward(server)
    assert server.operation_ids() == [
        "createPayloadUploadUrl",
        "forwardBackward",
        "getForwardBackwardOperation",
        "createPayloadDownloadUrl",
    ]
    assert server.captured[0].body is None  # upload-url takes no body
    assert [(r.method, str(r.url)) for r in server.storage_requests] == [
        ("PUT", UPLOAD_URL),
        ("GET", DOWNLOAD_URL),
    ]
    uploaded = _uploaded(server, "ForwardBackwardBody")
    assert uploaded["loss"] == {"type": "LOSS_TYPE_CROSS_ENTROPY"}
    assert len(uploaded["samples"]) == LARGE_BATCH
    first = uploaded["samples"][0]
    assert sum(len(c["encoded_text"]["tokens"]) for c in first["model_input"]["chunks"]) == (
        LARGE_TOKENS
    )
    assert first["loss_fn_inputs"]["weights"]["data"][:2] == [0.5, 1.0]

    stand_in = server.captured[1].body
    assert stand_in["payload_id"] == UPLOAD_PAYLOAD_ID
    assert stand_in["return_loss_fn_outputs"] is True
    assert stand_in["loss"] == uploaded["loss"] and len(stand_in["samples"]) == LARGE_BATCH
    _assert_shrunk(stand_in)

    download = server.captured[3].request.url.path
    assert download.endswith(f"/payloads/{RESULT_PAYLOAD_ID}/download-url")
    assert result.loss == FB_OFFLOADED["output"]["loss"]
    assert result.metrics == FB_OFFLOADED["output"]["metrics"]
    outputs = result.loss_fn_outputs or []
    assert [o.to_dict(mode="json") for o in outputs] == _offloaded_fb_outputs()


def test_merged_offloaded_result_matches_the_spec() -> None:
    """Inline members plus the downloaded ones make a `ForwardBackwardResult` / `SampleOutput`."""
    inline = {k: v for k, v in FB_OFFLOADED["output"].items() if k != "payload_id"}
    merged = {**inline, "loss_fn_outputs": _offloaded_fb_outputs()[:1]}
    assert not _schema_errors({"$ref": "#/components/schemas/ForwardBackwardResult"}, merged)
    merged = {"results": [SAMPLE_RESULT]}
    assert not _schema_errors({"$ref": "#/components/schemas/SampleOutput"}, merged)


def test_handwritten_trainer_custom_forward_backward_over_half_a_mebibyte(
    server: SpecServer,
) -> None:
    samples = [_long_sample(i, LARGE_TOKENS) for i in range(LARGE_BATCH)]
    for sample in samples:
        del sample["loss_fn_inputs"]["weights"]
    gradients = [
        {"data": np.full(LARGE_TOKENS, -0.25, dtype=np.float32), "dtype": "D_TYPE_FLOAT32"}
        for _ in samples
    ]
    _run_handwritten(
        server,
        lambda s: s.trainer.custom_forward_backward(
            samples=samples, gradients=gradients, interval=0.001
        ),
    )
    assert server.operation_ids() == [
        "createPayloadUploadUrl",
        "customForwardBackward",
        "getCustomForwardBackwardOperation",
    ]
    uploaded = _uploaded(server, "CustomForwardBackwardBody")
    assert [len(g["data"]) for g in uploaded["gradients"]] == [LARGE_TOKENS] * LARGE_BATCH
    stand_in = server.captured[1].body
    assert stand_in["payload_id"] == UPLOAD_PAYLOAD_ID
    _assert_shrunk(stand_in)


def test_handwritten_generator_sample_batch_over_half_a_mebibyte_with_offloaded_results(
    server: SpecServer,
) -> None:
    server.responses["getSampleOperation"] = SAMPLE_OFFLOADED
    prompts = [
        {"chunks": [{"encoded_text": {"tokens": (np.arange(LARGE_TOKENS) * 7 + i) % 1024}}]}
        for i in range(24)
    ]
    server.downloads[DOWNLOAD_URL] = json.dumps({"results": [SAMPLE_RESULT] * 24}).encode()
    results = _run_handwritten(
        server,
        lambda s: s.generator.sample_batch(
            prompts, num_samples=2, sampling_params=SAMPLING, interval=0.001
        ),
        generator=True,
    )
    assert server.operation_ids() == [
        "createPayloadUploadUrl",
        "sample",
        "getSampleOperation",
        "createPayloadDownloadUrl",
    ]
    uploaded = _uploaded(server, "SampleBody")
    assert len(uploaded["model_inputs"]) == 24
    assert uploaded["sampling_params"] == SAMPLING and uploaded["num_samples"] == 2
    stand_in = server.captured[1].body
    assert stand_in["payload_id"] == UPLOAD_PAYLOAD_ID
    assert all(len(m["chunks"][0]["encoded_text"]["tokens"]) <= 8 for m in stand_in["model_inputs"])
    assert [r.to_dict(mode="json") for r in results] == [SAMPLE_RESULT] * 24


# ----------------------------------------------------------------------------- coverage


def test_every_operation_is_exercised_through_the_sdk(server: SpecServer) -> None:
    """Strict coverage: the SDK's typed methods and its hand-written layer, together, send a
    spec-valid request to every operation of the spec. The two payload operations count only
    through the hand-written layer (the typed API has no method for them)."""
    sdk = _sync_client(server)
    try:
        for operation_id, call in ENDPOINT_CALLS:
            if operation_id not in ("createPayloadUploadUrl", "createPayloadDownloadUrl"):
                call(sdk)
    finally:
        sdk.close()
    _large_forward_backward(server)
    exercised = set(server.operation_ids())
    spec_operations = {op.operation_id for op in operations()}
    assert exercised == spec_operations, (
        f"not exercised: {sorted(spec_operations - exercised)}; "
        f"not in the spec: {sorted(exercised - spec_operations)}"
    )


def test_presigned_urls_must_be_called_without_authorization() -> None:
    """The stand-in object store has teeth: a PUT carrying the API key is a violation."""
    server = SpecServer()
    response = server(
        httpx.Request("PUT", UPLOAD_URL, content=b"{}", headers={"Authorization": "Bearer k"})
    )
    assert response.status_code == 400
    assert server.violations and "without Authorization" in server.violations[0]
    assert not server.uploads


def test_a_non_finite_gradient_never_reaches_the_wire(server: SpecServer) -> None:
    """JSON has no NaN: the SDK refuses it before sending, so no example file can hold one."""
    sample = {
        "model_input": {"chunks": [{"encoded_text": {"tokens": [17, 254]}}]},
        "loss_fn_inputs": {"target_tokens": np.array([254, 981], dtype=np.int64)},
    }
    gradient = {"data": np.array([0.5, np.nan], dtype=np.float32)}
    with pytest.raises(ValueError, match=r"(?i)nan|finite"):
        _run_handwritten(
            server,
            lambda s: s.trainer.custom_forward_backward(
                samples=[sample], gradients=[gradient], interval=0.001
            ),
        )
    assert not server.captured and not server.storage_requests
