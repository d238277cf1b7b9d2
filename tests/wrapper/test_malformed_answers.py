"""Every endpoint, fed a 2xx body it cannot read, raises MalformedResponseError (never a
KeyError or a TypeError): one reader serves every 2xx body. The test also checks that its calls
reach every endpoint the generated client has, so a new endpoint cannot skip it."""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import together_rl_client.api.rl as rl_endpoints
from together_rl import MalformedResponseError, Sample, losses
from together_rl._results import KINDS
from wrapper_helpers import Api, mocked

BASE = "http://malformed.test"
OFFLOADED = "op-offloaded"


def _endpoints() -> dict[str, Any]:
    """Every generated endpoint, by ``"METHOD /path/{param}"``."""
    found = {}
    for info in pkgutil.iter_modules(rl_endpoints.__path__):
        endpoint = importlib.import_module(f"{rl_endpoints.__name__}.{info.name}").ENDPOINT
        found[f"{endpoint.method} {endpoint.path}"] = endpoint
    return found


ENDPOINTS = _endpoints()
PATTERNS = {
    label: re.compile("^/v1" + re.sub(r"\{\w+\}", "[^/]+", label.split(" ", 1)[1]) + "$")
    for label in ENDPOINTS
}


def _route(request: httpx.Request) -> str:
    (label,) = [
        label
        for label, pattern in PATTERNS.items()
        if label.startswith(request.method + " ") and pattern.match(request.url.path)
    ]
    return label


def _calls(api: Api, tmp_path: Path) -> list[tuple[str, Callable[[], Any]]]:
    client = api.client
    session = client.session("sess-1")
    batch = [Sample.from_completion([1, 2], [3], logprobs=[-1.0], advantages=1.0)]
    loss = losses.GRPO()
    calls: list[tuple[str, Callable[[], Any]]] = [
        ("supported_models", lambda: api.call(client.supported_models)),
        ("resources.create", lambda: api.call(client.model_resources.create, "m", wait=False)),
        ("resources.get", lambda: api.call(client.model_resources.get, "mr-1")),
        ("resources.list", lambda: api.call(client.model_resources.list)),
        ("resources.stop", lambda: api.call(client.model_resources.stop, "mr-1")),
        ("resources.extend", lambda: api.call(client.model_resources.extend_expiry, "mr-1", 600)),
        ("resources.estimate", lambda: api.call(client.model_resources.estimate_cost, "m")),
        (
            "rollouts.estimate",
            lambda: api.call(
                client.rollouts.estimate,
                "m",
                episodes=1,
                concurrency=1,
                prompt_tokens=1,
                turns=1,
                generated_tokens_per_turn=1,
                added_tokens_per_turn=1,
            ),
        ),
        ("sessions.create", lambda: api.call(client.sessions.create, "mr-1", wait=False)),
        ("sessions.get", lambda: api.call(client.sessions.get, "sess-1")),
        ("sessions.list", lambda: api.call(client.sessions.list)),
        ("sessions.stop", lambda: api.call(client.sessions.stop, "sess-1")),
        ("sessions.update", lambda: api.call(client.sessions.update, "sess-1", display_name="x")),
        ("checkpoints.list", lambda: api.call(client.checkpoints.list)),
        ("checkpoints.get", lambda: api.call(client.checkpoints.get, "ckpt-1")),
        ("checkpoints.download", lambda: api.call(client.checkpoints.download, "ckpt-1", tmp_path)),
        ("forward_backward", lambda: api.call(session.forward_backward, batch, loss)),
        ("optim_step", lambda: api.call(session.optim_step, learning_rate=0.1)),
        ("sample", lambda: api.call(session.sample, [1, 2], max_tokens=2)),
        ("sync_weights", lambda: api.call(session.sync_weights)),
        ("custom", lambda: api.call(session.custom_forward_backward, batch, [[0.5, 0.5]])),
        ("save training", lambda: api.call(session.save_checkpoint, "training")),
        ("save inference", lambda: api.call(session.save_checkpoint, "inference")),
        # The payload protocol: an upload-url answer and a download-url answer.
        ("upload-url", lambda: api.call(session.forward_backward, batch * 200, loss)),
        (
            "download-url",
            lambda: api.result(api.call(session.get_operation, "forward-backward", OFFLOADED)),
        ),
    ]
    for kind in KINDS:  # the GET of every kind
        calls.append((f"get {kind}", lambda k=kind: api.call(session.get_operation, k, "op-1")))
    return calls


def _requires_nothing(label: str) -> bool:
    """Whether the spec lets the endpoint answer ``{}`` (its 2xx schema requires no field)."""
    parse = ENDPOINTS[label].parse_response
    return not importlib.import_module(parse.__self__.__module__).SCHEMA["required"]


@pytest.mark.parametrize("body", [b"{}", b"[1, 2]", b'"text"', b"null", b"7"])
def test_every_endpoint_refuses_an_unreadable_2xx_body(
    api_factory: Callable[..., Api], mode: str, tmp_path: Path, body: bytes
) -> None:
    reached: set[str] = set()

    def handler(request: httpx.Request) -> httpx.Response:
        label = _route(request)
        reached.add(label)
        if OFFLOADED in request.url.path:  # a completed operation whose output was offloaded
            answer = {
                "id": OFFLOADED,
                "status": "TRAINING_OPERATION_STATUS_COMPLETED",
                "output": {"payload_id": "payload-1"},
            }
            return httpx.Response(200, content=orjson.dumps(answer))
        return httpx.Response(200, content=body, headers={"content-type": "application/json"})

    api = api_factory(mode, **mocked(handler, BASE))
    api.client.upload_threshold = 4096
    everything: set[str] = set()
    for name, call in _calls(api, tmp_path):
        reached.clear()
        try:
            call()
        except MalformedResponseError:
            pass
        else:
            (label,) = reached
            assert body == b"{}" and _requires_nothing(label), f"{name} read {body!r}"
        everything |= reached
    assert everything == set(ENDPOINTS), sorted(set(ENDPOINTS) - everything)
