"""The other operation kinds (optim-step, sample, weights-sync, custom-forward-backward) and the
large-payload protocol against a scripted fake server (httpx.MockTransport), sync and async:
bodies sent, builders' bounds, result parsing, idempotent retries, offloaded outputs, uploads."""

from __future__ import annotations

import re
from typing import Any

import httpx
import numpy as np
import orjson
import pytest
from emulator_harness import COMPLETED
from together_rl import (
    AdamParams,
    InvalidRequestError,
    OptimStepResult,
    Sample,
    SampleResult,
    SamplingParams,
    WeightsSyncResult,
    losses,
)
from wrapper_helpers import Api, make_api, mocked

OP_ROUTE = re.compile(r"^/v1/rl/training-sessions/s1/operations/([a-z-]+)(?:/([^/]+))?$")
SAMPLE_OUTPUT = {
    "results": [
        {
            "policy_segments": [{"start_token": 0, "version": 2}],
            "sequences": [
                {
                    "tokens": ["7", 8, 9],
                    "logprobs": [-0.5, -1.25, -2.0],
                    "stop_reason": "STOP_REASON_LENGTH",
                    "prompt_cache_hit_tokens": 0,
                }
            ],
        }
    ]
}
OUTPUTS: dict[str, dict[str, Any]] = {
    "optim-step": {"step": "3"},
    "weights-sync": {"weights_version": 2},
    "sample": SAMPLE_OUTPUT,
    "custom-forward-backward": {},
    "forward-backward": {"loss": 0.5, "metrics": {}},
}


class FakeServer:
    """Operations by Idempotency-Key (a replay returns the same operation), one PENDING GET
    before COMPLETED, the payload routes, and optional faults and offloaded outputs."""

    def __init__(
        self,
        *,
        fail_first_posts: int = 0,
        offload: bool = False,
        uploads: bool = True,
        output_override: dict[str, Any] | None = None,
    ) -> None:
        self.requests: list[httpx.Request] = []
        self.operations: dict[str, tuple[str, str]] = {}  # key -> (kind, operation id)
        self.gets: dict[str, int] = {}
        self.fail_first_posts = fail_first_posts
        self.offload = offload
        self.uploads = uploads
        self.uploaded: dict[str, bytes] = {}
        self.outputs = dict(OUTPUTS, **(output_override or {}))

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path
        if path == "/v1/rl/training-sessions/s1/payloads/upload-url":
            if not self.uploads:
                return httpx.Response(404, json={"error": {"message": "no route"}})
            payload_id = f"pl-{len(self.uploaded)}"
            return httpx.Response(
                200, json={"payload_id": payload_id, "upload_url": f"http://up.test/{payload_id}"}
            )
        if request.url.host == "up.test":
            self.uploaded[path.strip("/")] = request.content
            return httpx.Response(200)
        if path.startswith("/v1/rl/training-sessions/s1/payloads/"):
            return httpx.Response(200, json={"download_url": "http://down.test/pl-out"})
        if request.url.host == "down.test":
            return httpx.Response(200, json={"results": SAMPLE_OUTPUT["results"]})
        match = OP_ROUTE.match(path)
        assert match is not None, path
        kind, operation_id = match.groups()
        if request.method == "POST":
            if self.fail_first_posts:
                self.fail_first_posts -= 1
                return httpx.Response(503, headers={"retry-after": "0"}, text="busy")
            key = request.headers["idempotency-key"]
            if key not in self.operations:
                self.operations[key] = (kind, f"op-{len(self.operations)}")
            _kind, op = self.operations[key]
            return httpx.Response(
                200, json={"id": op, "status": "TRAINING_OPERATION_STATUS_PENDING"}
            )
        self.gets[operation_id] = self.gets.get(operation_id, 0) + 1
        if self.gets[operation_id] == 1:
            return httpx.Response(200, json={"id": operation_id, "status": "SOMETHING_NEW"})
        output = dict(self.outputs[kind])
        if self.offload and kind == "sample":
            output = {"payload_id": "pl-out"}
        return httpx.Response(200, json={"id": operation_id, "status": COMPLETED, "output": output})

    def bodies(self, kind: str) -> list[Any]:
        suffix = f"/operations/{kind}"
        return [
            orjson.loads(r.content)
            for r in self.requests
            if r.method == "POST" and r.url.path.endswith(suffix)
        ]

    def keys(self, kind: str) -> list[str]:
        suffix = f"/operations/{kind}"
        return [
            r.headers["idempotency-key"]
            for r in self.requests
            if r.method == "POST" and r.url.path.endswith(suffix)
        ]


def fake_api(mode: str, server: FakeServer, **kwargs: Any) -> Api:
    return make_api(mode, **mocked(server, "http://fake.test"), **kwargs)


@pytest.fixture
def server() -> FakeServer:
    return FakeServer()


@pytest.fixture
def api(mode: str, server: FakeServer) -> Any:
    made = fake_api(mode, server)
    yield made
    made.close()


def session_of(api: Api) -> Any:
    return api.client.session("s1")


def test_optim_step_sends_only_set_fields_and_parses_the_step(api: Api, server: FakeServer) -> None:
    session = session_of(api)
    future = api.call(session.optim_step, learning_rate=0.01, grad_clip_norm=0)
    result = api.result(future)
    assert isinstance(result, OptimStepResult) and result.step == 3
    assert result.operation_id == future.operation_id
    assert server.bodies("optim-step") == [
        {"adam_params": {"learning_rate": 0.01, "grad_clip_norm": 0.0}}
    ]
    api.result(api.call(session.optim_step, AdamParams(beta1=0.5)))
    api.result(api.call(session.optim_step))
    assert server.bodies("optim-step")[1:] == [{"adam_params": {"beta1": 0.5}}, {}]
    keys = server.keys("optim-step")
    assert len(set(keys)) == 3


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"beta1": 1.0}, "adam_params.beta1"),
        ({"beta2": -0.1}, "adam_params.beta2"),
        ({"eps": 0.0}, "adam_params.eps"),
        ({"learning_rate": -1e-3}, "adam_params.learning_rate"),
        ({"learning_rate": float("nan")}, "adam_params.learning_rate"),
        ({"weight_decay": -1}, "adam_params.weight_decay"),
        ({"grad_clip_norm": "1"}, "adam_params.grad_clip_norm"),
        ({"adam_params": {"lr": 1.0}}, "adam_params.lr"),
        ({"adam_params": AdamParams(), "beta1": 0.9}, "adam_params"),
        ({"learnin_rate": 1e-4}, "adam_params.learnin_rate"),  # not a field of AdamParams
    ],
)
def test_optim_step_bounds_are_checked_before_sending(
    api: Api, server: FakeServer, kwargs: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidRequestError) as info:
        api.call(session_of(api).optim_step, **kwargs)
    assert info.value.field == field
    assert server.requests == []


def test_sample_body_and_result(api: Api, server: FakeServer) -> None:
    session = session_of(api)
    future = api.call(
        session.sample,
        [[1, 2, 3], np.array([4, 5], dtype=np.int32)],
        num_samples=4,
        max_tokens=3,
        temperature=0.7,
        top_p=0.9,
        top_k=50,
        seed=123,
        stop=["13", 14],
        prompt_logprobs=True,
        topk_prompt_logprobs=2,
    )
    result = api.result(future)
    (body,) = server.bodies("sample")
    assert body == {
        "model_inputs": [
            {"chunks": [{"encoded_text": {"tokens": [1, 2, 3]}}]},
            {"chunks": [{"encoded_text": {"tokens": [4, 5]}}]},
        ],
        "num_samples": 4,
        "sampling_params": {
            "max_tokens": 3,
            "temperature": 0.7,
            "top_p": 0.9,
            "top_k": 50,
            "seed": 123,
            "stop": ["13", "14"],
        },
        "prompt_logprobs": True,
        "topk_prompt_logprobs": 2,
    }
    assert isinstance(result, SampleResult) and len(result) == 1
    sequence = result[0].sequences[0]
    assert sequence.tokens.dtype == np.int64 and sequence.tokens.tolist() == [7, 8, 9]
    assert sequence.logprobs.dtype == np.float64
    assert sequence.logprobs.tolist() == [-0.5, -1.25, -2.0]
    assert sequence.stop_reason == "STOP_REASON_LENGTH"
    assert result[0].policy_segments[0].version == 2


def test_sample_single_prompt_and_defaults(api: Api, server: FakeServer) -> None:
    api.result(api.call(session_of(api).sample, [5, 6]))
    api.result(api.call(session_of(api).sample, [[5, 6]], sampling_params=SamplingParams(seed=1)))
    first, second = server.bodies("sample")
    assert first == {
        "model_inputs": [{"chunks": [{"encoded_text": {"tokens": [5, 6]}}]}],
        "num_samples": 1,
    }
    assert second["sampling_params"] == {"seed": 1}


@pytest.mark.parametrize(
    ("args", "kwargs", "field"),
    [
        (([1],), {"num_samples": -1}, "num_samples"),
        (([1],), {"num_samples": 0}, "num_samples"),
        (([1],), {"max_tokens": 0}, "sampling_params.max_tokens"),
        (([1],), {"top_p": 0.0}, "sampling_params.top_p"),
        (([1],), {"temperature": -1.0}, "sampling_params.temperature"),
        (([1],), {"topk_prompt_logprobs": 21}, "topk_prompt_logprobs"),
        (([1],), {"stop": "13"}, "sampling_params.stop"),
        (([1],), {"max_token": 3}, "sampling_params.max_token"),  # not a SamplingParams field
        (([[1], []],), {}, "model_inputs[1]"),
        (([[1], [1.5]],), {}, "model_inputs[1]"),
        (([],), {}, "model_inputs"),
    ],
)
def test_sample_bounds_are_checked_before_sending(
    api: Api, server: FakeServer, args: tuple[Any, ...], kwargs: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidRequestError) as info:
        api.call(session_of(api).sample, *args, **kwargs)
    assert info.value.field == field
    assert server.requests == []


def test_sync_weights(api: Api, server: FakeServer) -> None:
    result = api.result(api.call(session_of(api).sync_weights))
    assert isinstance(result, WeightsSyncResult) and result.weights_version == 2
    api.result(api.call(session_of(api).sync_weights, "pipeline"))
    assert server.bodies("weights-sync") == [
        {"weight_sync_type": "WEIGHT_SYNC_TYPE_SYNCHRONOUS"},
        {"weight_sync_type": "WEIGHT_SYNC_TYPE_PIPELINE"},
    ]
    with pytest.raises(InvalidRequestError) as info:
        api.call(session_of(api).sync_weights, "eventually")
    assert info.value.field == "weight_sync_type"


def test_custom_forward_backward_body_and_checks(api: Api, server: FakeServer) -> None:
    session = session_of(api)
    sample = Sample.from_completion([1, 2], [3, 4])  # 3 slots, weights [0, 1, 1]
    api.result(api.call(session.custom_forward_backward, [sample], [np.array([0.0, -1.0, -0.5])]))
    (body,) = server.bodies("custom-forward-backward")
    assert body["gradients"] == [{"data": [0.0, -1.0, -0.5], "dtype": "D_TYPE_FLOAT32"}]
    assert body["samples"][0]["loss_fn_inputs"]["target_tokens"]["data"] == [2, 3, 4]
    for gradients, field in (
        ([[1.0, 2.0]], "gradients[0].data"),
        ([[1.0, float("inf"), 0.0]], "gradients[0].data[1]"),
        ([np.array([1.0, np.nan, 0.0])], "gradients[0].data"),
        ([], "gradients"),
    ):
        with pytest.raises(InvalidRequestError) as info:
            api.call(session.custom_forward_backward, [sample], gradients)
        assert info.value.field == field
    with pytest.raises(InvalidRequestError) as info:
        api.call(
            session.custom_forward_backward,
            [
                {
                    "model_input": {"chunks": [{"encoded_text": {"tokens": [1]}}]},
                    "loss_fn_inputs": {"weights": {"data": [1.0], "dtype": "float32"}},
                }
            ],
            [[1.0]],
        )
    assert info.value.field == "samples[0].loss_fn_inputs.target_tokens"
    assert len(server.bodies("custom-forward-backward")) == 1


def test_a_retried_optim_step_reuses_its_key(mode: str) -> None:
    server = FakeServer(fail_first_posts=2)
    api = fake_api(mode, server)
    try:
        result = api.result(api.call(session_of(api).optim_step, learning_rate=0.1))
    finally:
        api.close()
    assert result.step == 3
    keys = server.keys("optim-step")
    assert len(keys) == 3 and len(set(keys)) == 1
    assert len(server.operations) == 1


def test_an_offloaded_output_is_downloaded_and_merged_without_auth(mode: str) -> None:
    server = FakeServer(offload=True)
    api = fake_api(mode, server)
    try:
        result = api.result(api.call(session_of(api).sample, [1, 2], num_samples=1))
    finally:
        api.close()
    assert result[0].sequences[0].tokens.tolist() == [7, 8, 9]
    download_url = [r for r in server.requests if "download-url" in r.url.path]
    assert len(download_url) == 1 and "authorization" in download_url[0].headers
    (download,) = [r for r in server.requests if r.url.host == "down.test"]
    assert "authorization" not in download.headers


def big_samples(n: int = 4, length: int = 300) -> list[Sample]:
    rng = np.random.default_rng(0)
    return [
        Sample.from_completion(
            rng.integers(0, 1000, 20),
            rng.integers(0, 1000, length),
            logprobs=rng.normal(-1, 0.1, length),
            advantages=1.0,
        )
        for _ in range(n)
    ]


def test_a_large_body_is_uploaded_and_a_stand_in_posted(mode: str) -> None:
    server = FakeServer()
    api = fake_api(mode, server)
    api.client.upload_threshold = 10_000
    try:
        samples = big_samples()
        api.result(api.call(session_of(api).forward_backward, samples, losses.GRPO()))
        api.result(api.call(session_of(api).optim_step))  # small: inline
    finally:
        api.close()
    (put,) = [r for r in server.requests if r.url.host == "up.test"]
    assert put.method == "PUT" and "authorization" not in put.headers
    full = orjson.loads(server.uploaded["pl-0"])
    assert len(full["samples"]) == 4
    assert len(full["samples"][0]["model_input"]["chunks"][0]["encoded_text"]["tokens"]) == 319
    (stand_in,) = server.bodies("forward-backward")
    assert stand_in["payload_id"] == "pl-0"
    assert stand_in["loss"] == full["loss"]
    first = stand_in["samples"][0]
    assert len(first["model_input"]["chunks"][0]["encoded_text"]["tokens"]) == 8
    assert all(len(t["data"]) == 8 for t in first["loss_fn_inputs"].values())
    assert server.bodies("optim-step") == [{}]


def test_without_upload_support_large_bodies_go_inline_and_it_stops_asking(mode: str) -> None:
    server = FakeServer(uploads=False)
    api = fake_api(mode, server)
    api.client.upload_threshold = 10_000
    try:
        for _ in range(2):
            api.result(api.call(session_of(api).forward_backward, big_samples(), losses.GRPO()))
    finally:
        api.close()
    asked = [r for r in server.requests if "upload-url" in r.url.path]
    assert len(asked) == 1
    assert all("payload_id" not in body for body in server.bodies("forward-backward"))
    assert (
        len(server.bodies("forward-backward")[0]["samples"][0]["loss_fn_inputs"]["weights"]["data"])
        == 319
    )


def test_threshold_none_sends_everything_inline(mode: str) -> None:
    server = FakeServer()
    api = fake_api(mode, server)
    api.client.upload_threshold = None
    try:
        api.result(api.call(session_of(api).forward_backward, big_samples(), losses.GRPO()))
    finally:
        api.close()
    assert not [r for r in server.requests if "payload" in r.url.path]


def test_futures_of_different_kinds_reattach_by_id(api: Api, server: FakeServer) -> None:
    session = session_of(api)
    future = api.call(session.optim_step)
    again = api.call(session.get_operation, "optim-step", future.operation_id)
    assert api.result(again).step == 3
    with pytest.raises(InvalidRequestError):
        api.call(session.get_operation, "nap", "op-0")
