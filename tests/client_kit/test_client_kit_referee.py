"""The referee plays its faults on the real socket (a drop is a closed connection without an
answer, a truncated answer is cut below its Content-Length) and records every attempt."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from email.utils import parsedate_to_datetime

import httpx
import pytest
from together_rl_client_kit._referee import Referee
from together_rl_client_kit._types import Fault
from together_rl_emulator import serve_emulator

KEY = "referee-test-key"
MODELS = "/v1/rl/supported-models"


@pytest.fixture
def referee() -> Iterator[Referee]:
    with serve_emulator(api_keys=[KEY]) as server, Referee(server.base_url) as front:
        yield front


def _client(referee: Referee) -> httpx.Client:
    return httpx.Client(
        base_url=referee.base_url, headers={"authorization": f"Bearer {KEY}"}, timeout=10
    )


def test_drop_closes_the_connection_without_an_answer(referee: Referee) -> None:
    referee.arm((Fault(target="call", action="drop"),), "getSupportedModels")
    referee.begin_call(1)
    with _client(referee) as client:
        with pytest.raises(httpx.RemoteProtocolError):
            client.get(MODELS)
        assert client.get(MODELS).status_code == 200  # count 1: the next one passes
    dropped, passed = referee.end_call()
    assert dropped.status is None and dropped.fault == "connection dropped before commit"
    assert dropped.upstream_json is None  # before commit: the emulator never saw it
    assert passed.status == 200 and passed.fault is None


def test_truncated_answer_is_cut_below_its_content_length(referee: Referee) -> None:
    referee.arm((Fault(target="call", action="truncate"),), "getSupportedModels")
    referee.begin_call(2)
    with _client(referee) as client, pytest.raises(httpx.RemoteProtocolError):
        client.get(MODELS)
    (attempt,) = referee.end_call()
    assert attempt.fault == "answer truncated"
    assert isinstance(attempt.upstream_json, dict)  # the emulator answered in full


def test_retry_after_as_an_http_date_and_the_attempt_record(referee: Referee) -> None:
    fault = Fault(target="call", action="status", status=429, retry_after="http-date:1")
    referee.arm((fault,), "createModelResources")
    referee.begin_call(3)
    body = b'{"base_model": "emulator/tiny-1k"}'
    headers = {"idempotency-key": "k-1", "content-type": "application/json"}
    with _client(referee) as client:
        answer = client.post("/v1/rl/model-resources", content=body, headers=headers)
    (attempt,) = referee.end_call()
    assert answer.status_code == 429
    when = parsedate_to_datetime(answer.headers["retry-after"]).timestamp()
    assert attempt.retry_after_wait is not None and 1.0 <= attempt.retry_after_wait <= 2.0
    assert when - attempt.arrived_wall >= 1.0
    assert (attempt.method, attempt.path, attempt.key) == ("POST", "/v1/rl/model-resources", "k-1")
    assert attempt.body_digest == hashlib.sha256(body).hexdigest()
    assert attempt.operation_id == "createModelResources"
