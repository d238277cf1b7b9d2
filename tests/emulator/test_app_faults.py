"""Injected faults (each kind, route filter, count, clearing) and a no-5xx fuzz of endpoints."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from _emulator_bodies import (
    FB,
    TINY,
    assert_schema,
    fb_body,
    new_session,
    process_client,
    stats,
    submit,
)
from emulator_harness import LiveEmulator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SESSIONS = "POST /v1/rl/training-sessions"


def _arm(client: httpx.Client, **fault: Any) -> str:
    r = client.post("/_emulator/faults", json=fault)
    assert r.status_code == 200, r.text
    fault_id: str = r.json()["fault_id"]
    return fault_id


def _session_count(client: httpx.Client) -> int:
    return len(client.get("/v1/rl/training-sessions", params={"limit": 100}).json()["data"])


@pytest.mark.parametrize("kind, status", [("http_429", 429), ("http_503", 503)])
def test_json_error_faults_answer_at_once_and_store_nothing(
    emulator_client: httpx.Client, kind: str, status: int
) -> None:
    mr = emulator_client.post("/v1/rl/model-resources", json={"base_model": TINY}).json()["id"]
    _arm(emulator_client, kind=kind, count=2, route=SESSIONS, retry_after=3)
    for _ in range(2):
        r = emulator_client.post("/v1/rl/training-sessions", json={"model_resources_id": mr})
        assert r.status_code == status
        assert r.headers["retry-after"] == "3"
        assert_schema(r.json(), "ErrorData")
    assert _session_count(emulator_client) == 0
    r = emulator_client.post("/v1/rl/training-sessions", json={"model_resources_id": mr})
    assert r.status_code == 200
    assert stats(emulator_client)["requests"][SESSIONS] == 3


def test_502_html_fault(emulator_client: httpx.Client) -> None:
    _arm(emulator_client, kind="http_502_html")
    r = emulator_client.get("/v1/rl/supported-models")
    assert r.status_code == 502
    assert r.headers["content-type"].startswith("text/html")
    assert b"<html>" in r.content
    assert emulator_client.get("/v1/rl/supported-models").status_code == 200


def test_route_filter_leaves_other_routes_alone(emulator_client: httpx.Client) -> None:
    _arm(emulator_client, kind="http_503", route="GET /v1/rl/supported-models")
    assert emulator_client.get("/v1/rl/training-sessions").status_code == 200
    assert emulator_client.get("/_emulator/stats").status_code == 200  # never faulted
    assert emulator_client.get("/v1/rl/supported-models").status_code == 503
    assert emulator_client.get("/v1/rl/supported-models").status_code == 200


def test_delete_clears_faults(emulator_client: httpx.Client) -> None:
    _arm(emulator_client, kind="http_429", count=5)
    assert len(emulator_client.get("/_emulator/faults").json()["faults"]) == 1
    assert emulator_client.delete("/_emulator/faults").json() == {"cleared": 1}
    assert emulator_client.get("/v1/rl/supported-models").status_code == 200


@pytest.mark.parametrize(
    "fault, param",
    [
        ({"kind": "explode"}, "kind"),
        ({"kind": "http_429", "count": 0}, "count"),
        ({"kind": "http_429", "route": "GET /v1/nowhere"}, "route"),
        ({"kind": "latency", "latency_ms": "slow"}, "latency_ms"),
        ({"kind": "http_429", "extra": 1}, "extra"),
    ],
)
def test_bad_fault_bodies_are_400(
    emulator_client: httpx.Client, fault: dict[str, Any], param: str
) -> None:
    r = emulator_client.post("/_emulator/faults", json=fault)
    assert r.status_code == 400
    assert r.json()["error"]["param"] == param


def test_drop_after_commit_in_process(transport_client: httpx.Client) -> None:
    c = transport_client
    sid = new_session(c)
    _arm(c, kind="drop_after_commit", route="POST " + FB.format("{session_id}"))
    with pytest.raises(httpx.RemoteProtocolError):
        submit(c, sid, fb_body(), "k")
    assert stats(c)["operations_created"] == {"forward-backward": 1}
    # The retry with the same key gets the committed operation back.
    r = submit(c, sid, fb_body(), "k")
    assert r.status_code == 200
    assert stats(c)["idempotent_replays"] == {"forward-backward": 1}


def test_drop_after_commit_needs_a_server_that_can_drop(emulator_client: httpx.Client) -> None:
    """A plain ASGI client (Starlette's TestClient) offers no drop extension: the request is
    committed, then the app says what it needs instead of faking a hang-up."""
    _arm(emulator_client, kind="drop_after_commit", route=SESSIONS)
    mr = emulator_client.post("/v1/rl/model-resources", json={"base_model": TINY}).json()["id"]
    with pytest.raises(RuntimeError, match="drop_after_commit needs a server"):
        emulator_client.post("/v1/rl/training-sessions", json={"model_resources_id": mr})
    assert _session_count(emulator_client) == 1


def test_drop_after_commit_over_loopback(live_emulator: LiveEmulator) -> None:
    """uvicorn closes the connection, neither answering 500 for the app that sent nothing nor
    logging an error for it."""
    errors = _Records()
    uvicorn_log = logging.getLogger("uvicorn.error")
    uvicorn_log.addHandler(errors)
    try:
        with httpx.Client(
            base_url=live_emulator.base_url, headers=live_emulator.headers()
        ) as client:
            mr = client.post("/v1/rl/model-resources", json={"base_model": TINY}).json()["id"]
            _arm(client, kind="drop_after_commit", route=SESSIONS)
            with pytest.raises(httpx.RemoteProtocolError):
                client.post("/v1/rl/training-sessions", json={"model_resources_id": mr})
            assert _session_count(client) == 1  # committed although the client never saw it
            assert client.get("/healthz").status_code == 200  # the server lives on
    finally:
        uvicorn_log.removeHandler(errors)
    assert errors.messages == []


def test_drop_after_commit_from_the_command(state_dir: Path, emulator_processes: Any) -> None:
    """`together-rl-emulator` serves the drop the same way (one uvicorn setup for both)."""
    process = emulator_processes(state_dir)
    with process_client(process) as client:
        mr = client.post("/v1/rl/model-resources", json={"base_model": TINY}).json()["id"]
        _arm(client, kind="drop_after_commit", route=SESSIONS)
        with pytest.raises(httpx.RemoteProtocolError):
            client.post("/v1/rl/training-sessions", json={"model_resources_id": mr})
        assert _session_count(client) == 1
    assert "Exception in ASGI application" not in process.log_tail()
    assert "without starting response" not in process.log_tail()


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def test_latency_fault_delays_the_answer(live_emulator: LiveEmulator) -> None:
    with httpx.Client(base_url=live_emulator.base_url, headers=live_emulator.headers()) as client:
        _arm(client, kind="latency", latency_ms=400, route="GET /v1/rl/supported-models")
        start = time.monotonic()
        r = client.get("/v1/rl/supported-models")
        assert r.status_code == 200
        assert time.monotonic() - start >= 0.4  # lower bound guaranteed by the fault


def test_fault_endpoints_need_auth(emulator_app: Any) -> None:
    from emulator_harness import emulator_test_client

    with emulator_test_client(emulator_app, api_key=None) as anonymous:
        assert anonymous.post("/_emulator/faults", json={"kind": "http_429"}).status_code == 401
        assert anonymous.delete("/_emulator/faults").status_code == 401


# ------------------------------------------------------------------ fuzz: never a 5xx
_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(
        st.sampled_from(
            ["samples", "loss", "type", "model_input", "chunks", "encoded_text", "tokens",
             "loss_fn_inputs", "data", "dtype", "base_model", "model_resources_id", "x"]
        ) | st.text(max_size=5),
        children,
        max_size=4,
    ),
    max_leaves=20,
)  # fmt: skip


def _mutations() -> st.SearchStrategy[dict[str, Any]]:
    """Valid forward-backward bodies with one field replaced by arbitrary JSON."""

    def mutate(body: dict[str, Any], where: int, value: Any) -> dict[str, Any]:
        paths: list[tuple[Any, Any]] = []

        def walk(node: Any) -> None:
            if isinstance(node, dict):
                for k, v in node.items():
                    paths.append((node, k))
                    walk(v)
            elif isinstance(node, list):
                for i, v in enumerate(node):
                    paths.append((node, i))
                    walk(v)

        walk(body)
        parent, key = paths[where % len(paths)]
        parent[key] = value
        return body

    loss = st.sampled_from(
        ["LOSS_TYPE_CROSS_ENTROPY", "LOSS_TYPE_GRPO", "LOSS_TYPE_PPO", "LOSS_TYPE_DRO"]
    )
    return st.builds(
        lambda lt, where, value: mutate(fb_body(lt, n_samples=2, length=3), where, value),
        loss,
        st.integers(0, 10_000),
        _json,
    )


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(body=_mutations())
def test_fuzzed_forward_backward_never_5xx(emulator_client: httpx.Client, body: Any) -> None:
    sid = _fuzz_session(emulator_client)
    r = submit(emulator_client, sid, body, "fuzz-" + str(hash(str(body))))
    assert r.status_code in (200, 400, 422), r.text
    assert_schema(r.json(), "ForwardBackwardOperation" if r.status_code == 200 else "ErrorData")


@settings(max_examples=100, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(body=_json)
def test_fuzzed_bodies_on_every_post_never_5xx(emulator_client: httpx.Client, body: Any) -> None:
    sid = _fuzz_session(emulator_client)
    for path, headers in [
        ("/v1/rl/model-resources", {}),
        ("/v1/rl/training-sessions", {}),
        (FB.format(sid), {"Idempotency-Key": "fuzz"}),
        ("/_emulator/faults", {}),
    ]:
        r = emulator_client.post(path, json=body, headers=headers)
        assert r.status_code < 500, (path, r.text)
        if r.status_code >= 400:
            assert_schema(r.json(), "ErrorData")
    emulator_client.delete("/_emulator/faults")


def _fuzz_session(client: httpx.Client) -> str:
    """One session per client (hypothesis reuses the function-scoped client across examples)."""
    sid: str | None = getattr(client, "fuzz_session_id", None)
    if sid is None:
        sid = new_session(client)
        client.fuzz_session_id = sid  # type: ignore[attr-defined]
    return sid
