"""Deliberately broken variants of the emulator: ASGI middleware that breaks exactly one thing."""

from __future__ import annotations

import contextlib
import json
import re
import uuid
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from together_rl_contract_tests.proxy._forwarding import read_body

__all__ = [
    "FB_OPERATION",
    "FB_SUBMIT",
    "KINDS",
    "LOGPROB_DRIFT",
    "SAMPLE_OPERATION",
    "ASGIApp",
    "BrokenVariant",
    "Message",
    "Receive",
    "Scope",
    "Send",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

FB_SUBMIT = re.compile(r"^/v1/rl/training-sessions/[^/]+/operations/forward-backward$")
FB_OPERATION = re.compile(r"^/v1/rl/training-sessions/[^/]+/operations/forward-backward(/[^/]+)?$")
SAMPLE_OPERATION = re.compile(r"^/v1/rl/training-sessions/[^/]+/operations/sample(/[^/]+)?$")
#: How far ``sample_logprobs_drift`` moves every sampled log-prob (far above the 1e-5 promise).
LOGPROB_DRIFT = 1e-3

KINDS = (
    "drop_status",
    "replay_creates_new",
    "accept_missing_key",
    "wrong_loss",
    "500_on_malformed_json",
    "sample_logprobs_drift",
    "ignore_cross_field_rule",
)
ROLLOUT_ESTIMATE = "/v1/rl/rollouts/estimate"


class BrokenVariant:
    """Wraps the emulator's ASGI app; ``kind`` is one of :data:`KINDS`."""

    def __init__(self, app: ASGIApp, kind: str) -> None:
        assert kind in KINDS, kind
        self.app = app
        self.kind = kind

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path, method = scope["path"], scope["method"]
        body = await read_body(receive)
        headers = list(scope["headers"])
        is_submit = method == "POST" and FB_SUBMIT.match(path) is not None
        if is_submit and self.kind in ("replay_creates_new", "accept_missing_key"):
            has_key = any(name.lower() == b"idempotency-key" for name, _ in headers)
            if self.kind == "replay_creates_new" or not has_key:
                headers = [(n, v) for n, v in headers if n.lower() != b"idempotency-key"]
                headers.append((b"idempotency-key", uuid.uuid4().hex.encode()))
        if self.kind == "500_on_malformed_json" and method == "POST" and body:
            try:
                json.loads(body)
            except ValueError:
                await _send_json(
                    send, 500, {"error": {"message": "internal", "type": "server_error"}}
                )
                return
        if self.kind == "ignore_cross_field_rule" and path == ROLLOUT_ESTIMATE:
            body = _lift_added_tokens(body)
        rewrite = (
            self.kind in ("drop_status", "wrong_loss") and FB_OPERATION.match(path) is not None
        ) or (self.kind == "sample_logprobs_drift" and SAMPLE_OPERATION.match(path) is not None)
        inner_scope = dict(scope, headers=headers)
        if not rewrite:
            await self.app(inner_scope, _replay(body), send)
            return
        await self.app(inner_scope, _replay(body), _Rewriter(send, self._rewrite).send)

    def _rewrite(self, document: Any) -> Any:
        if not isinstance(document, dict):
            return document
        if self.kind == "drop_status":
            document.pop("status", None)
        elif self.kind == "wrong_loss" and isinstance(document.get("output"), dict):
            loss = document["output"].get("loss")
            if isinstance(loss, int | float):
                document["output"]["loss"] = loss * 1.1 + 0.5
        elif self.kind == "sample_logprobs_drift" and isinstance(document.get("output"), dict):
            # Sampled tokens stay right; their reported log-probs no longer match the policy.
            for result in document["output"].get("results") or []:
                for sequence in result.get("sequences") or []:
                    sequence["logprobs"] = [lp - LOGPROB_DRIFT for lp in sequence["logprobs"]]
        return document


def _lift_added_tokens(body: bytes) -> bytes:
    """A rollout estimate body whose `added_tokens_per_turn` is below its generated tokens gets
    them raised to that: the server then accepts what the spec says it must refuse."""
    try:
        document = json.loads(body)
        added, generated = document["added_tokens_per_turn"], document["generated_tokens_per_turn"]
        if isinstance(added, int) and isinstance(generated, int) and added < generated:
            document["added_tokens_per_turn"] = generated
            return json.dumps(document).encode()
    except (ValueError, TypeError, KeyError):
        pass
    return body


def _replay(body: bytes) -> Receive:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


async def _send_json(send: Send, status: int, document: Any) -> None:
    payload = json.dumps(document).encode()
    await send({
        "type": "http.response.start", "status": status,
        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())],  # noqa: E501
    })  # fmt: skip
    await send({"type": "http.response.body", "body": payload})


class _Rewriter:
    """Buffers a JSON response, rewrites it, and sends it with a corrected Content-Length."""

    def __init__(self, send: Send, rewrite: Callable[[Any], Any]) -> None:
        self._send = send
        self._rewrite = rewrite
        self._start: Message | None = None
        self._chunks: list[bytes] = []

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self._start = message
            return
        if message["type"] != "http.response.body":
            await self._send(message)
            return
        self._chunks.append(message.get("body", b""))
        if message.get("more_body"):
            return
        assert self._start is not None
        payload = b"".join(self._chunks)
        with contextlib.suppress(ValueError):
            payload = json.dumps(self._rewrite(json.loads(payload))).encode()
        headers = [(n, v) for n, v in self._start["headers"] if n.lower() != b"content-length"]
        headers.append((b"content-length", str(len(payload)).encode()))
        await self._send(dict(self._start, headers=headers))
        await self._send({"type": "http.response.body", "body": payload})
