"""The spec against everything the official SDK's Tinker-compatible layer sends.

`together.post_training.tinker` (together 3.1.1, tinker 0.23.1) opens its own HTTP clients, so
its traffic is captured on the server side instead of through a MockTransport: the emulator is
wrapped in an ASGI recorder that checks every request with `_spec_request_check.check_request`
(the check of `test_sdk_capture.py`: route, bearer auth, headers, query, and the body against
the spec's schemas, which refuse unknown fields) and keeps every response status. The layer's
whole public surface is then driven against it. A request the spec does not describe, and a
request the emulator refuses, both fail, so that the spec accepts whatever the layer can send.

The one part not driven here is `forward_backward_custom`, which needs torch (not a dependency
of this project); its wire call, `customForwardBackward`, is the SDK's `Trainer` call that
`test_sdk_capture.py` covers.
"""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from _sdk_responses import API_KEY
from _spec_request_check import check_request
from ci_policy import import_required
from spec_example_datums import spec_example_datums, spec_example_loss_config
from together_rl_emulator import ThreadServer, create_app, serve_in_thread

BASE_MODEL = "emulator/tiny-1k"
STORAGE_PREFIX = "/_emulator/"  # the emulator's presigned URLs (object storage on the real API)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


@dataclass
class Exchange:
    method: str
    path: str
    operation_id: str | None  # None for a presigned storage URL
    status: int = 0


@dataclass
class SpecRecorder:
    """ASGI middleware: checks each request against the spec, then lets `app` answer it."""

    app: Any
    exchanges: list[Exchange] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        messages = [await receive()]
        while messages[-1].get("more_body", False):
            messages.append(await receive())
        body = b"".join(message.get("body", b"") for message in messages)
        exchange = self._check(scope, body)

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        async def record_status(message: Message) -> None:
            if message["type"] == "http.response.start":
                exchange.status = message["status"]
            await send(message)

        await self.app(scope, replay, record_status)

    def _check(self, scope: Scope, body: bytes) -> Exchange:
        query = scope.get("query_string", b"").decode()
        request = httpx.Request(
            scope["method"],
            f"http://127.0.0.1{scope['path']}" + (f"?{query}" if query else ""),
            headers=[(name.decode(), value.decode()) for name, value in scope["headers"]],
            content=body,
        )
        exchange = Exchange(scope["method"], scope["path"], None)
        self.exchanges.append(exchange)
        try:
            if scope["path"].startswith(STORAGE_PREFIX):
                assert "authorization" not in request.headers, (
                    f"{scope['method']} {scope['path']}: a presigned URL sent with Authorization"
                )
            else:
                exchange.operation_id = check_request(request)[0].operation_id
        except (AssertionError, LookupError) as violation:
            self.violations.append(str(violation))
        return exchange

    def operation_ids(self) -> set[str]:
        return {e.operation_id for e in self.exchanges if e.operation_id is not None}

    def refused(self) -> list[str]:
        return [f"{e.method} {e.path} -> {e.status}" for e in self.exchanges if e.status >= 400]


@pytest.fixture
def recorder() -> Iterator[tuple[SpecRecorder, ThreadServer]]:
    app = create_app(api_keys=[API_KEY], seed=0)
    spec_recorder = SpecRecorder(app)
    server = serve_in_thread(spec_recorder, on_stop=app.emulator.close)
    yield spec_recorder, server
    server.stop()


@pytest.fixture(scope="module")
def tinker() -> Any:
    return import_required("together.post_training.tinker")


def _large_datums(tinker: Any) -> list[Any]:
    """Cross-entropy data whose JSON body is over the SDK's 0.5 MiB offload threshold."""
    length = 4000  # about 12 JSON bytes a position: 16 x 4000 x 12 > 0.5 MiB
    datums = [
        tinker.Datum(
            model_input=tinker.ModelInput.from_ints([(i * 7 + j) % 1000 for j in range(length)]),
            loss_fn_inputs={
                "target_tokens": [(i * 7 + j + 1) % 1000 for j in range(length)],
                "weights": [1.0] * length,
            },
        )
        for i in range(16)
    ]
    return datums


def drive_the_whole_surface(tinker: Any, base_url: str) -> None:
    """Every public call of the layer (sync twins; the async ones send the same requests)."""
    from together.post_training.tinker._losses import LOSS_SPECS  # every loss the layer maps

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the ignored-option warnings are tested elsewhere
        service = tinker.ServiceClient(
            base_url=base_url,
            api_key=API_KEY,
            timeout=30,
            max_retries=1,
            default_headers={"X-Ignored": "1"},
        )
        client = service.create_lora_training_client(
            base_model=BASE_MODEL, rank=4, seed=1, train_unembed=False, train_mlp=False
        )
        for loss_fn in sorted(LOSS_SPECS):
            datums = spec_example_datums(tinker, loss_fn)
            config = spec_example_loss_config(loss_fn)
            client.forward(datums, loss_fn, config).result()
            client.forward_backward(datums, loss_fn, config).result()
            client.forward_backward(datums, loss_fn, config, return_loss_fn_outputs=True).result()
        client.forward_backward(_large_datums(tinker), "cross_entropy").result()
        client.optim_step(
            tinker.AdamParams(
                learning_rate=1e-3,
                beta1=0.8,
                beta2=0.9,
                eps=1e-6,
                weight_decay=0.01,
                grad_clip_norm=1.0,
            )
        ).result()
        client.optim_step(tinker.AdamParams()).result()

        state = client.save_state("state", ttl_seconds=60, overwrite=True).result().path
        client.save_weights_for_sampler("weights", ttl_seconds=60).result()
        client.save_weights_and_get_sampling_client(
            weight_sync_type="WEIGHT_SYNC_TYPE_BACKGROUND_PUBLISH"
        )
        sampler = client.save_weights_and_get_sampling_client(name="ignored")
        prompt = tinker.ModelInput.from_ints([1, 2, 3, 4])
        sampler.sample(prompt, 2, tinker.SamplingParams()).result()  # Tinker's defaults: top_k -1
        sampler.sample(
            prompt,
            3,
            tinker.SamplingParams(
                max_tokens=4, seed=9, stop=["17", 18], temperature=0.7, top_k=0, top_p=0.9
            ),
            include_prompt_logprobs=True,
            topk_prompt_logprobs=5,
        ).result()
        sampler.compute_logprobs(prompt).result()

        resumed = service.create_training_client_from_state(state)
        resumed_with_optimizer = service.create_training_client_from_state_with_optimizer(state)
        for training_client in (client, resumed, resumed_with_optimizer):
            training_client.close()

        lent = httpx.post(
            f"{base_url}/v1/rl/model-resources",
            json={"base_model": BASE_MODEL, "lora_enabled": True},
            headers={"Authorization": f"Bearer {API_KEY}"},
        ).json()["id"]
        borrower = tinker.ServiceClient(base_url=base_url, api_key=API_KEY, model_resources_id=lent)
        borrower.create_lora_training_client(base_model=BASE_MODEL).close()


LAYER_OPERATIONS = {
    "createModelResources",
    "getModelResources",
    "stopModelResources",
    "startTrainingSession",
    "getTrainingSession",
    "stopTrainingSession",
    "forwardBackward",
    "getForwardBackwardOperation",
    "createPayloadUploadUrl",
    "optimStep",
    "getOptimStepOperation",
    "weightsSync",
    "getWeightsSyncOperation",
    "sample",
    "getSampleOperation",
    "createTrainingCheckpoint",
    "getTrainingCheckpointOperation",
    "createInferenceCheckpoint",
    "getInferenceCheckpointOperation",
    "getCheckpoint",
}


def test_everything_the_layer_sends_matches_the_spec(
    tinker: Any, recorder: tuple[SpecRecorder, ThreadServer]
) -> None:
    spec_recorder, server = recorder
    drive_the_whole_surface(tinker, server.base_url)

    assert not spec_recorder.violations, "\n".join(spec_recorder.violations)
    assert not spec_recorder.refused(), spec_recorder.refused()
    assert spec_recorder.operation_ids() >= LAYER_OPERATIONS, (
        LAYER_OPERATIONS - spec_recorder.operation_ids()
    )
    storage = [e for e in spec_recorder.exchanges if e.operation_id is None]
    assert [e.method for e in storage] == ["PUT"]  # the large forward-backward's body


def test_the_recorder_catches_a_request_the_spec_refuses(
    recorder: tuple[SpecRecorder, ThreadServer],
) -> None:
    spec_recorder, server = recorder
    response = httpx.post(
        f"{server.base_url}/v1/rl/model-resources",
        json={"base_model": BASE_MODEL, "not_in_the_spec": True},
        headers={"Authorization": f"Bearer {API_KEY}"},
    )
    assert response.status_code == 400
    assert spec_recorder.refused() == ["POST /v1/rl/model-resources -> 400"]
    assert len(spec_recorder.violations) == 1 and "not_in_the_spec" in spec_recorder.violations[0]
