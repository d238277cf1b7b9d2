"""The proxy in front of deliberately drifted upstreams reports each drift, with its operation and
field path. The drifts are the contract suite's broken variants (``_broken.py``) plus three more
written here the same way: an enum value the spec lacks, an undocumented status code, and an
operation whose status goes backwards."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import httpx
import pytest
from together_rl_contract_tests.proxy._exchange import Violation
from together_rl_contract_tests.proxy._in_thread import proxy_in_thread
from together_rl_emulator import serve_in_thread

from ._broken import ASGIApp, BrokenVariant, Receive, Scope, Send, _Rewriter, _send_json

KEY = "drift-key"
COMPLETED = "TRAINING_OPERATION_STATUS_COMPLETED"
OPERATION_GET = re.compile(r"^/v1/rl/training-sessions/[^/]+/operations/forward-backward/[^/]+$")
SESSION_GET = re.compile(r"^/v1/rl/training-sessions/[^/]+$")
SESSION_GET = re.compile(r"^/v1/rl/training-sessions/[^/]+$")


class UnknownStatusValue:
    """Sessions come back with a status the spec's (closed) enum does not have. (An
    operation's status is an open string: an unknown one is no drift.)"""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and SESSION_GET.match(scope["path"]):
            send = _Rewriter(send, self._rewrite).send
        await self.app(scope, receive, send)

    @staticmethod
    def _rewrite(document: Any) -> Any:
        document["status"] = "TRAINING_SESSION_STATUS_PAUSED"
        return document


class UndocumentedStatusCode:
    """Reading a session answers 207, a status the spec does not list for it. (An undocumented
    4xx where every status rule of the operation is this project's choice is a difference, not
    a violation: tests/contract/test_differences.py.)"""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] == "GET"
            and SESSION_GET.match(scope["path"])
        ):
            await _send_json(send, 207, {"id": "sess-drifted"})
            return
        await self.app(scope, receive, send)


class StatusGoesBackwards:
    """An operation already reported COMPLETED is reported RUNNING again (output dropped)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.completed: set[str] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and OPERATION_GET.match(scope["path"]):
            send = _Rewriter(send, self._rewrite).send
        await self.app(scope, receive, send)

    def _rewrite(self, document: Any) -> Any:
        if document.get("id") in self.completed:
            document["status"] = "TRAINING_OPERATION_STATUS_RUNNING"
            document.pop("output", None)
        elif document.get("status") == COMPLETED:
            self.completed.add(document["id"])
        return document


@contextmanager
def _drifted(wrap: Callable[[Any], Any]) -> Iterator[Any]:
    from together_rl_emulator import create_app

    app = create_app(api_keys=[KEY], seed=0)
    upstream = serve_in_thread(wrap(app), on_stop=app.emulator.close)
    try:
        with proxy_in_thread(upstream.base_url) as proxy:
            yield proxy
    finally:
        upstream.stop()


def _session(client: httpx.Client) -> str:
    resources = client.post("/v1/rl/model-resources", json={"base_model": "emulator/tiny-1k"})
    created = client.post(
        "/v1/rl/training-sessions", json={"model_resources_id": resources.json()["id"]}
    )
    session_id: str = created.json()["id"]
    return session_id


def _fb_body() -> dict[str, Any]:
    return {
        "samples": [{
            "model_input": {"chunks": [{"encoded_text": {"tokens": [5, 17, 254]}}]},
            "loss_fn_inputs": {
                "target_tokens": {"data": [17, 254, 981], "dtype": "int64"},
                "logprobs": {"data": [-1.5, -2.0, -0.5], "dtype": "float32"},
                "advantages": {"data": [1.0, -0.5, 0.25], "dtype": "float32"},
            },
        }],
        "loss": {"type": "LOSS_TYPE_IMPORTANCE_SAMPLING"},
        "return_loss_fn_outputs": True,
    }  # fmt: skip


def _forward_backward(client: httpx.Client, session_id: str, key: str | None = None) -> str:
    headers = {"Idempotency-Key": key or str(uuid.uuid4())}
    path = f"/v1/rl/training-sessions/{session_id}/operations/forward-backward"
    operation_id: str = client.post(path, json=_fb_body(), headers=headers).json()["id"]
    return operation_id


def _poll(client: httpx.Client, session_id: str, operation_id: str, after_done: int = 0) -> None:
    path = f"/v1/rl/training-sessions/{session_id}/operations/forward-backward/{operation_id}"
    deadline = time.monotonic() + 30
    while client.get(path).json().get("status") != COMPLETED:
        assert time.monotonic() < deadline
    for _ in range(after_done):
        client.get(path)


def _drive_training(client: httpx.Client) -> None:
    session_id = _session(client)
    _poll(client, session_id, _forward_backward(client, session_id), after_done=1)


def _drive_status_drift(client: httpx.Client) -> None:
    """Stops polling after a few unknown statuses (the drifted server never completes)."""
    session_id = _session(client)
    operation_id = _forward_backward(client, session_id)
    for _ in range(3):
        client.get(
            f"/v1/rl/training-sessions/{session_id}/operations/forward-backward/{operation_id}"
        )


def _drive_session_read(client: httpx.Client) -> None:
    client.get(f"/v1/rl/training-sessions/{_session(client)}")


def _drive_replay(client: httpx.Client) -> None:
    session_id, key = _session(client), str(uuid.uuid4())
    _forward_backward(client, session_id, key)
    _forward_backward(client, session_id, key)


# drift -> (upstream middleware, how the client drives it, (check, operation, field) expected)
DRIFTS: dict[str, tuple[Callable[[Any], Any], Callable[[httpx.Client], None], tuple[str, str, str]]] = {  # noqa: E501
    "missing required field": (partial(BrokenVariant, kind="drop_status"), _drive_status_drift,
                               ("response", "getForwardBackwardOperation", "status")),
    "enum value the spec lacks": (UnknownStatusValue, _drive_session_read,
                                  ("response", "getTrainingSession", "status")),
    "undocumented status code": (UndocumentedStatusCode, _drive_session_read,
                                 ("response", "getTrainingSession", "HTTP status")),
    "status goes backwards": (StatusGoesBackwards, _drive_training,
                              ("lifecycle", "getForwardBackwardOperation", "status")),
    "replay returns a different operation id": (
        partial(BrokenVariant, kind="replay_creates_new"), _drive_replay,
        ("idempotency", "forwardBackward", "id")),
    "wrong loss": (partial(BrokenVariant, kind="wrong_loss"), _drive_training,
                   ("loss", "getForwardBackwardOperation", "output.loss")),
}  # fmt: skip


def _found(violations: list[Violation]) -> set[tuple[str, str, str | None]]:
    return {(v.check, v.operation, v.field) for v in violations}


@pytest.mark.parametrize("drift", sorted(DRIFTS))
def test_each_drift_is_reported_with_its_field_path(drift: str) -> None:
    wrap, drive, expected = DRIFTS[drift]
    with (
        _drifted(wrap) as proxy,
        httpx.Client(base_url=proxy.base_url, headers={"Authorization": f"Bearer {KEY}"}) as client,
    ):
        drive(client)
    assert expected in _found(proxy.monitor.violations), proxy.log
    check, operation, field = expected
    assert any(f"[{check}] {operation}" in line and f" {field}:" in line for line in proxy.log)


@pytest.mark.parametrize("drive", [_drive_training, _drive_replay, _drive_session_read])
def test_the_same_traffic_to_the_emulator_has_no_violations(
    drive: Callable[[httpx.Client], None],
) -> None:
    """Control: the violations above come from the drift, not from the checks."""
    with (
        _drifted(lambda app: app) as proxy,
        httpx.Client(base_url=proxy.base_url, headers={"Authorization": f"Bearer {KEY}"}) as client,
    ):
        drive(client)
    assert proxy.monitor.violations == [], proxy.log
    if drive is _drive_training:
        [probe] = proxy.monitor.checks.loss_probes
        assert probe.matches_project


def test_a_wrong_loss_names_the_definitions_it_does_not_match() -> None:
    with (
        _drifted(partial(BrokenVariant, kind="wrong_loss")) as proxy,
        httpx.Client(base_url=proxy.base_url, headers={"Authorization": f"Bearer {KEY}"}) as client,
    ):
        _drive_training(client)
    [probe] = proxy.monitor.checks.loss_probes
    assert not probe.matches_project and probe.matched == ()
    assert any("matches: none of the candidate definitions" in line for line in proxy.log)
