"""Odd server answers, via httpx.MockTransport, sync and async: HTML 502, empty 429, 520,
non-retryable errors, x-should-retry, unknown statuses, FAILED; Idempotency-Key reuse; nothing
sent when the body is refused."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from together_rl import (
    BadRequestError,
    ConflictError,
    InternalServerError,
    InvalidRequestError,
    OperationFailedError,
    RateLimitError,
    Sample,
    UnprocessableEntityError,
    losses,
)
from wrapper_helpers import Api, mocked

OP = "/v1/rl/training-sessions/s1/operations/forward-backward"
DONE = {
    "id": "op-1",
    "status": "TRAINING_OPERATION_STATUS_COMPLETED",
    "output": {
        "loss": 1.5,
        "metrics": {"m": 2.0},
        "loss_fn_outputs": [{"tensors": {"logprobs": {"data": [0.0, -1.0], "dtype": "float32"}}}],
    },
}
PENDING = {"id": "op-1", "status": "TRAINING_OPERATION_STATUS_PENDING"}


class Script:
    """Answers POSTs and GETs from two scripted lists (the last answer repeats)."""

    def __init__(
        self, posts: list[httpx.Response], gets: list[httpx.Response] | None = None
    ) -> None:
        self.posts, self.gets = posts, gets or [httpx.Response(200, json=DONE)]
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        queue = self.posts if request.method == "POST" else self.gets
        template = queue.pop(0) if len(queue) > 1 else queue[0]
        template.read()
        return httpx.Response(
            template.status_code, headers=template.headers, content=template.content
        )

    @property
    def post_keys(self) -> list[str]:
        return [r.headers["idempotency-key"] for r in self.requests if r.method == "POST"]


def mock_api(api_factory: Callable[..., Api], mode: str, script: Script) -> Api:
    return api_factory(mode, **mocked(script, "http://mock.test"))


def samples() -> list[Sample]:
    return [Sample.from_completion([1, 2], [3, 4], logprobs=[-1.0, -1.0], advantages=1.0)]


def submit(api: Api, **kwargs: Any) -> Any:
    session = api.client.session("s1")
    return api.call(session.forward_backward, samples(), losses.GRPO(), **kwargs)


ODD = [
    httpx.Response(502, html="<html><body>Bad gateway</body></html>"),
    httpx.Response(429),
    httpx.Response(520, text="cloudflare says no"),
    httpx.Response(
        503,
        json={"error": {"message": "busy", "type": "unavailable"}},
        headers={"retry-after": "0"},
    ),
    httpx.Response(409, json={"error": {"message": "in flight", "type": "conflict"}}),
]


def test_odd_bodies_are_retried_with_one_key(api_factory: Callable[..., Api], mode: str) -> None:
    script = Script([*ODD, httpx.Response(200, json=PENDING)])
    api = mock_api(api_factory, mode, script)
    result = api.result(submit(api))
    assert result.loss == 1.5 and result.metrics == {"m": 2.0}
    assert result.logprobs[0].tolist() == [0.0, -1.0]
    keys = script.post_keys
    assert len(keys) == 6 and len(set(keys)) == 1
    again = Script([httpx.Response(200, json=PENDING)])
    api2 = mock_api(api_factory, mode, again)
    api2.result(submit(api2))
    assert again.post_keys[0] != keys[0]  # a new logical call gets a new key


# Every kind of failure the wrapper retries: each retryable status, a server's explicit
# x-should-retry, and each transport error (raised by the transport: nothing came back).
RETRYABLE_FAULTS: dict[str, Callable[[httpx.Request], httpx.Response]] = {
    **{
        str(status): (lambda request, status=status: httpx.Response(status))
        for status in (408, 409, 429, 500, 502, 503, 504, 520)
    },
    "400-should-retry": lambda request: httpx.Response(400, headers={"x-should-retry": "true"}),
}
for _error in (httpx.ConnectError, httpx.ConnectTimeout, httpx.ReadTimeout, httpx.ReadError,
               httpx.WriteError, httpx.RemoteProtocolError):  # fmt: skip

    def _raise(request: httpx.Request, error: type[httpx.TransportError] = _error) -> Any:
        raise error("injected", request=request)

    RETRYABLE_FAULTS[_error.__name__] = _raise


@pytest.mark.parametrize("fault", sorted(RETRYABLE_FAULTS))
def test_every_attempt_of_a_call_carries_the_same_key(
    api_factory: Callable[..., Api], mode: str, fault: str
) -> None:
    """Two failures of one kind, then success: the three POSTs carry one Idempotency-Key."""
    posts: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            return httpx.Response(200, json=DONE)
        posts.append(request)
        if len(posts) <= 2:
            return RETRYABLE_FAULTS[fault](request)
        return httpx.Response(200, json=PENDING)

    api = api_factory(mode, **mocked(handler, "http://mock.test"))
    assert api.result(submit(api)).loss == 1.5
    keys = [r.headers.get("idempotency-key") for r in posts]
    assert len(keys) == 3 and keys[0] and keys == [keys[0]] * 3, keys


@pytest.mark.parametrize(
    ("response", "error"),
    [
        (
            httpx.Response(
                400,
                json={
                    "error": {
                        "message": "bad",
                        "type": "invalid_request_error",
                        "param": "samples[0].loss_fn_inputs.advantages",
                    }
                },
            ),
            BadRequestError,
        ),
        (
            httpx.Response(
                422,
                json={"error": {"message": "key reused", "type": "idempotency"}},
                headers={"x-should-retry": "false"},
            ),
            UnprocessableEntityError,
        ),
        (
            httpx.Response(
                409,
                json={"error": {"message": "no", "type": "conflict"}},
                headers={"x-should-retry": "false"},
            ),
            ConflictError,
        ),
    ],
)
def test_not_retried(
    api_factory: Callable[..., Api], mode: str, response: httpx.Response, error: type[Exception]
) -> None:
    script = Script([response])
    api = mock_api(api_factory, mode, script)
    with pytest.raises(error) as caught:
        submit(api)
    assert len(script.requests) == 1
    assert caught.value.status_code == response.status_code  # type: ignore[attr-defined]
    assert caught.value.operation.startswith("POST ")  # type: ignore[attr-defined]
    if response.status_code == 400:
        assert caught.value.param == "samples[0].loss_fn_inputs.advantages"  # type: ignore[attr-defined]


def test_gives_up_with_typed_error(api_factory: Callable[..., Api], mode: str) -> None:
    api = mock_api(api_factory, mode, Script([httpx.Response(520, text="<html>x</html>")]))
    with pytest.raises(InternalServerError) as caught:
        submit(api)
    assert caught.value.status_code == 520 and caught.value.message == "<html>x</html>"
    api = mock_api(api_factory, mode, Script([httpx.Response(429)]))
    with pytest.raises(RateLimitError) as rate:
        submit(api)
    assert rate.value.message == "Too Many Requests"


def test_unknown_status_keeps_polling(api_factory: Callable[..., Api], mode: str) -> None:
    odd = {"id": "op-1", "status": "TRAINING_OPERATION_STATUS_QUEUED_SOMEWHERE_NEW"}
    script = Script(
        [httpx.Response(200, json=PENDING)],
        [
            httpx.Response(200, json=odd),
            httpx.Response(200, json=odd),
            httpx.Response(200, json=DONE),
        ],
    )
    api = mock_api(api_factory, mode, script)
    assert api.result(submit(api)).loss == 1.5
    assert sum(r.method == "GET" for r in script.requests) == 3


def test_failed_raises_with_code_and_message(api_factory: Callable[..., Api], mode: str) -> None:
    failed = {
        "id": "op-1",
        "status": "TRAINING_OPERATION_STATUS_FAILED",
        "error": {"code": "TRAINING_OPERATION_ERROR_CODE_NON_FINITE_LOSS", "message": "nan"},
    }
    api = mock_api(
        api_factory,
        mode,
        Script([httpx.Response(200, json=PENDING)], [httpx.Response(200, json=failed)]),
    )
    with pytest.raises(OperationFailedError) as caught:
        api.result(submit(api))
    assert (caught.value.operation_id, caught.value.code, caught.value.message) == (
        "op-1",
        "TRAINING_OPERATION_ERROR_CODE_NON_FINITE_LOSS",
        "nan",
    )


def test_non_finite_never_sent(api_factory: Callable[..., Api], mode: str) -> None:
    script = Script([httpx.Response(200, json=PENDING)])
    api = mock_api(api_factory, mode, script)
    bad = [Sample.from_completion([1, 2], [3, 4], logprobs=[-1.0, math.nan], advantages=1.0)]
    with pytest.raises(InvalidRequestError, match=r"samples\[0\]\.loss_fn_inputs\.logprobs"):
        api.call(api.client.session("s1").forward_backward, bad, losses.GRPO())
    assert script.requests == []


def test_request_headers_and_flags(api_factory: Callable[..., Api], mode: str) -> None:
    script = Script([httpx.Response(200, json=DONE)])
    api = mock_api(api_factory, mode, script)
    future = submit(api, idempotency_key="my-key", forward_only=True)
    assert future.done()
    request = script.requests[0]
    assert request.url.path == OP
    assert request.headers["idempotency-key"] == "my-key"
    assert request.headers["authorization"] == "Bearer test-key"
    assert request.headers["content-type"] == "application/json"
    assert b'"forward_only":true' in request.content
    assert b"return_loss_fn_outputs" not in request.content
