"""The error contract: every error the wrapper raises derives from TogetherRLError;
InvalidRequestError means nothing was sent; a 2xx answer the wrapper cannot read is a
MalformedResponseError; a wait for readiness that gives up is a NotReadyError."""

from __future__ import annotations

import inspect
from collections.abc import Callable

import httpx
import pytest
import together_rl
from together_rl import (
    Client,
    InvalidRequestError,
    MalformedResponseError,
    NotReadyError,
    TogetherRLError,
)


def test_every_exported_error_derives_from_together_rl_error() -> None:
    errors = [
        value
        for value in vars(together_rl).values()
        if inspect.isclass(value) and issubclass(value, BaseException)
    ]
    assert len(errors) > 10
    assert all(issubclass(error, TogetherRLError) for error in errors), errors


def client_answering(answer: Callable[[httpx.Request], httpx.Response]) -> tuple[Client, list[str]]:
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(f"{request.method} {request.url.path}")
        return answer(request)

    clock = iter(range(10**6))
    client = Client(
        "k",
        "http://mock.test",
        transport=httpx.MockTransport(handler),
        sleep=lambda _: None,
        clock=lambda: float(next(clock)),
    )
    return client, sent


def test_a_2xx_that_is_not_json_is_a_malformed_response() -> None:
    client, _ = client_answering(lambda _: httpx.Response(200, text="<html>ok</html>"))
    with pytest.raises(MalformedResponseError) as caught:
        client.supported_models()
    assert caught.value.operation == "GET /v1/rl/supported-models"
    assert "<html>" in str(caught.value.body)


def test_a_session_body_without_its_fields_is_a_malformed_response() -> None:
    client, _ = client_answering(lambda _: httpx.Response(200, json={"id": "s-1"}))
    with pytest.raises(MalformedResponseError):
        client.sessions.get("s-1")


def test_an_operation_body_without_id_is_a_malformed_response() -> None:
    client, _ = client_answering(lambda _: httpx.Response(200, json={"status": "x"}))
    with pytest.raises(MalformedResponseError):
        client.session("s-1").sync_weights()


def test_options_that_do_not_fit_the_request_are_refused_before_sending() -> None:
    client, sent = client_answering(lambda _: httpx.Response(500))
    with pytest.raises(InvalidRequestError):
        client.sessions.create("mr-1", lora_config=5)  # type: ignore[arg-type]
    assert sent == []


@pytest.mark.parametrize(
    ("call", "field", "schema"),
    [
        (lambda c: c.sessions.create("mr-1", display_nam="x"), "display_nam", "SessionCreate"),
        (lambda c: c.sessions.update("s-1", metadta={}), "metadta", "SessionUpdate"),
        (lambda c: c.session("s-1").update(name="x"), "name", "SessionUpdate"),
        (
            lambda c: c.model_resources.create("m", lora_enable=True),
            "lora_enable",
            "ModelResourcesCreate",
        ),
        (
            lambda c: c.model_resources.estimate_cost("m", gpus=2),
            "gpus",
            "ModelResourcesCreate",
        ),
        (
            lambda c: c.rollouts.estimate(
                "m",
                episodes=1,
                concurrency=1,
                prompt_tokens=1,
                turns=1,
                generated_tokens_per_turn=1,
                added_tokens_per_turn=1,
                replicas=2,
            ),
            "replicas",
            "RolloutEstimateRequest",
        ),
    ],
)
def test_an_option_the_spec_does_not_have_is_refused_naming_it(
    call: Callable[[Client], object], field: str, schema: str
) -> None:
    """The generated models would drop an unknown key silently: the wrapper names it."""
    client, sent = client_answering(lambda _: httpx.Response(500))
    with pytest.raises(InvalidRequestError) as caught:
        call(client)
    assert caught.value.field == field
    assert f"is not a field of {schema} (" in str(caught.value)
    assert sent == []


def test_a_session_that_does_not_start_in_time_is_not_ready() -> None:
    starting = {
        "id": "s-1",
        "base_model": "m",
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "created_by": "u",
        "inference_checkpoints": [],
        "training_checkpoints": [],
        "metadata": {},
        "model_resources_id": "mr-1",
        "policy_state": {
            "applied_weights_version": 0,
            "pending_publish": False,
            "target_weights_version": 0,
            "trainer_step": 0,
        },
        "status": "TRAINING_SESSION_STATUS_PENDING",
        "step": 0,
    }
    client, sent = client_answering(lambda _: httpx.Response(200, json=starting))
    with pytest.raises(NotReadyError) as caught:
        client.sessions.create("mr-1", timeout=5.0)
    assert isinstance(caught.value, TimeoutError)
    assert sent[0] == "POST /v1/rl/training-sessions" and len(sent) > 1
