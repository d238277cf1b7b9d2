"""The wrapper against the emulator (in-process and over loopback), sync and async alike:
idempotent retries under every fault kind, Retry-After, FAILED, timeouts, futures order."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from together_rl import (
    OperationFailedError,
    OperationTimeoutError,
    Sample,
    losses,
)
from wrapper_helpers import Api, Emulator, Recorder, connect, start_session

FB_POST = "POST /v1/rl/training-sessions/{session_id}/operations/forward-backward"
FB_GET = "GET /v1/rl/training-sessions/{session_id}/operations/forward-backward/{operation_id}"
LOSS = losses.GRPO(clip_low_threshold=0.8, clip_high_threshold=1.2)


def batch(seed: int = 0, n: int = 2) -> list[Sample]:
    return [
        Sample.from_completion(
            [1 + seed, 2, 3],
            [4, 5 + i, 6],
            logprobs=[-1.0, -1.5, -2.0],
            advantages=0.5 - i + 0.25 * seed,
        )
        for i in range(n)
    ]


@pytest.mark.parametrize("kind", ["http_429", "http_503", "http_502_html", "drop_after_commit"])
def test_post_fault_retried_creates_one_operation(
    api_factory: Callable[..., Api],
    emulator_factory: Callable[..., Emulator],
    mode: str,
    where: str,
    kind: str,
) -> None:
    emulator = emulator_factory(where)
    sleeps = Recorder()
    api = connect(api_factory, mode, emulator, sleep=sleeps)
    session = start_session(api)
    emulator.fault(kind, count=2, route=FB_POST, retry_after=0)
    future = api.call(session.forward_backward, batch(), LOSS)
    result = api.result(future)
    stats = emulator.stats()
    assert stats["operations_created"]["forward-backward"] == 1
    assert stats["requests"][FB_POST] == 3
    replays = stats["idempotent_replays"].get("forward-backward", 0)
    assert replays == (2 if kind == "drop_after_commit" else 0)
    assert result.operation_id == future.operation_id
    assert len(result.logprobs) == 0
    # The retried call computed what the same call computes on an emulator without faults.
    calm = connect(api_factory, mode, emulator_factory(where), sleep=Recorder())
    undisturbed = calm.result(calm.call(start_session(calm).forward_backward, batch(), LOSS))
    assert math.isfinite(result.loss)
    assert result.loss == undisturbed.loss


def test_get_fault_retried(
    api_factory: Callable[..., Api],
    emulator_factory: Callable[..., Emulator],
    mode: str,
    where: str,
) -> None:
    emulator = emulator_factory(where)
    api = connect(api_factory, mode, emulator, sleep=Recorder())
    session = start_session(api)
    emulator.fault("http_502_html", count=1, route=FB_GET)
    emulator.fault("http_503", count=1, route=FB_GET, retry_after=0)
    future = api.call(session.forward_backward, batch(), LOSS, return_loss_fn_outputs=True)
    result = api.result(future)
    assert len(result.logprobs) == 2
    assert result.logprobs[0].dtype.name == "float32"
    assert emulator.stats()["operations_created"]["forward-backward"] == 1


@pytest.mark.parametrize("kind", ["http_429", "http_503"])
def test_retry_after_is_honoured(
    api_factory: Callable[..., Api],
    emulator_factory: Callable[..., Emulator],
    mode: str,
    kind: str,
) -> None:
    emulator = emulator_factory("inproc")
    sleeps = Recorder()
    api = connect(api_factory, mode, emulator, sleep=sleeps)
    session = start_session(api)
    emulator.fault(kind, count=1, route=FB_POST, retry_after=7)
    before = len(sleeps.delays)
    api.call(session.forward_backward, batch(), LOSS)
    assert sleeps.delays[before:] == [7.0]
    assert emulator.stats()["operations_created"]["forward-backward"] == 1


def test_idempotency_key_passed_by_caller_replays(
    api_factory: Callable[..., Api],
    emulator_factory: Callable[..., Emulator],
    mode: str,
) -> None:
    emulator = emulator_factory("inproc")
    api = connect(api_factory, mode, emulator)
    session = start_session(api)
    first = api.call(session.forward_backward, batch(), LOSS, idempotency_key="step-1")
    again = api.call(session.forward_backward, batch(), LOSS, idempotency_key="step-1")
    other = api.call(session.forward_backward, batch(), LOSS)
    assert first.operation_id == again.operation_id != other.operation_id
    stats = emulator.stats()
    assert stats["operations_created"]["forward-backward"] == 2
    assert stats["idempotent_replays"]["forward-backward"] == 1


def test_futures_preserve_submission_order(
    api_factory: Callable[..., Api],
    emulator_factory: Callable[..., Emulator],
    mode: str,
    where: str,
) -> None:
    emulator = emulator_factory(where, op_latency_ms=20)
    api = connect(api_factory, mode, emulator)
    session = start_session(api)
    expected = [api.call(session.forward, batch(seed), LOSS).loss for seed in range(4)]
    futures = [
        api.call(session.forward_backward, batch(seed), LOSS, forward_only=True)
        for seed in range(4)
    ]
    results = [api.result(future) for future in futures]
    assert [r.operation_id for r in results] == [f.operation_id for f in futures]
    assert [r.loss for r in results] == expected
    assert len(set(expected)) == 4


def test_failed_operation_raises(
    api_factory: Callable[..., Api],
    emulator_factory: Callable[..., Emulator],
    mode: str,
) -> None:
    emulator = emulator_factory("loopback", op_latency_ms=300)
    api = connect(api_factory, mode, emulator)
    session = start_session(api)
    api.call(session.forward_backward, batch(), LOSS)
    queued = api.call(session.forward_backward, batch(1), LOSS)
    api.call(session.stop)
    with pytest.raises(OperationFailedError) as caught:
        api.result(queued)
    assert caught.value.operation_id == queued.operation_id
    assert caught.value.code == "TRAINING_OPERATION_ERROR_CODE_SESSION_NOT_ACTIVE"


def test_timeout_keeps_operation_collectable(
    api_factory: Callable[..., Api],
    emulator_factory: Callable[..., Emulator],
    mode: str,
) -> None:
    emulator = emulator_factory("loopback", op_latency_ms=400)
    api = connect(api_factory, mode, emulator)
    session = start_session(api)
    future = api.call(session.forward_backward, batch(), LOSS)
    with pytest.raises(OperationTimeoutError) as caught:
        api.result(future, timeout=0.05)
    assert isinstance(caught.value, TimeoutError)
    assert caught.value.operation_id == future.operation_id
    again = api.call(session.get_forward_backward, caught.value.operation_id)
    reattached, collected = api.result(again), api.result(future)
    # Both futures give the result of the one operation the emulator ran, under its id.
    ran = emulator._control.get(f"/_emulator/operations/{future.operation_id}").json()
    assert ran["id"] and ran["status"] == "TRAINING_OPERATION_STATUS_COMPLETED"
    assert reattached.operation_id == collected.operation_id == ran["id"]
    assert reattached.loss == collected.loss
    assert emulator.stats()["operations_created"]["forward-backward"] == 1


def test_sessions_and_resources(
    api_factory: Callable[..., Api],
    emulator_factory: Callable[..., Emulator],
    mode: str,
) -> None:
    emulator = emulator_factory("inproc")
    api = connect(api_factory, mode, emulator)
    session = start_session(api)
    assert session.info.status.value == "TRAINING_SESSION_STATUS_RUNNING"
    fetched = api.call(api.client.sessions.get, session.id)
    assert fetched.id == session.id
    resources = api.call(api.client.model_resources.get, session.info.model_resources_id)
    assert resources.status.value == "MODEL_RESOURCES_STATUS_READY"
    page = api.call(api.client.sessions.list)
    assert session.id in [s.id for s in page.data]
    stopped = api.call(api.client.sessions.stop, session.id)
    assert stopped.status.value in {
        "TRAINING_SESSION_STATUS_STOPPED",
        "TRAINING_SESSION_STATUS_STOPPING",
    }
