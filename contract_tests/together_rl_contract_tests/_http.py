"""The HTTP client scenario tests use: bearer auth, a rate limit, Retry-After, and a safety guard.

The guard is the suite's promise to owners of a real API key: against a target that is not the
emulator and without ``--allow-mutations``, a request that could create, stop, train or bill
anything raises :class:`SafetyViolation` before it leaves the process. Only reads and
``forward_only`` forward-backward passes to ``--session-id`` get through: optim-step, weights-sync
and custom forward-backward change the policy; sample is read-like but runs (billed) inference;
the payload URLs and the presigned PUT store data.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

import httpx
import orjson

from together_rl_contract_tests._spec import OPERATION_KINDS as SPEC_OPERATION_KINDS
from together_rl_contract_tests._spec import (
    Route,
    enum_value,
    find_route,
    operation_id,
    operation_kind,
    wire_path,
)
from together_rl_contract_tests._target import Target

__all__ = [
    "COMPLETED",
    "CUSTOM_FORWARD_BACKWARD",
    "ESTIMATE_COST",
    "ESTIMATE_ROLLOUTS",
    "FAILED",
    "FORWARD_BACKWARD",
    "GUARDED_KINDS",
    "INFERENCE_CHECKPOINT",
    "MAX_RETRY_AFTER_S",
    "OPERATION_KINDS",
    "OPTIM_STEP",
    "PAYLOAD_OPERATIONS",
    "SAMPLE",
    "TERMINAL_STATUSES",
    "TRAINING_CHECKPOINT",
    "WEIGHTS_SYNC",
    "Operation",
    "SafetyViolation",
    "StatusRuleBreach",
    "TargetClient",
    "expect_status_rule",
    "operation_path",
    "wait_until_terminal",
]

#: The operation kinds of the spec, named by their path segment (``.../operations/<kind>``).
FORWARD_BACKWARD = operation_kind("forward-backward")
OPTIM_STEP = operation_kind("optim-step")
SAMPLE = operation_kind("sample")
WEIGHTS_SYNC = operation_kind("weights-sync")
CUSTOM_FORWARD_BACKWARD = operation_kind("custom-forward-backward")
TRAINING_CHECKPOINT = operation_kind("training-checkpoint")
INFERENCE_CHECKPOINT = operation_kind("inference-checkpoint")
OPERATION_KINDS = tuple(SPEC_OPERATION_KINDS)
#: The POSTs that create, change and bill nothing.
ESTIMATE_COST = operation_id("estimateModelResourcesCost")
ESTIMATE_ROLLOUTS = operation_id("estimateRollouts")
#: The operations of the large-payload protocol (they store data).
PAYLOAD_OPERATIONS = frozenset(
    map(operation_id, ("createPayloadUploadUrl", "createPayloadDownloadUrl"))
)
#: operationId of each kind's POST -> its kind (path segment).
_KIND_OF_SUBMIT = {submit: kind for kind, (submit, _poll) in SPEC_OPERATION_KINDS.items()}
#: Why each kind other than forward-backward is refused on a non-emulator target without
#: ``--allow-mutations``.
GUARDED_KINDS = {
    OPTIM_STEP: "optim-step changes the policy",
    WEIGHTS_SYNC: "weights-sync publishes weights to the sampler",
    CUSTOM_FORWARD_BACKWARD: "custom-forward-backward accumulates gradients",
    SAMPLE: "sample changes nothing but runs billed inference",
    TRAINING_CHECKPOINT: "training-checkpoint stores a checkpoint",
    INFERENCE_CHECKPOINT: "inference-checkpoint stores and registers a model",
}
MAX_RETRY_AFTER_S = 60.0
COMPLETED = enum_value("OperationStatus", "COMPLETED")
FAILED = enum_value("OperationStatus", "FAILED")
#: The only statuses a poll stops at (the spec's `OperationStatus` description says so).
TERMINAL_STATUSES = frozenset({COMPLETED, FAILED})


class SafetyViolation(RuntimeError):
    """A request the suite must not send to this target."""


class StatusRuleBreach(AssertionError):
    """The target refused with another 4xx than the one the spec's status rules (``x-rules``
    with a ``status``) of ``operation_id`` give: off the emulator, when every such rule is this
    project's choice, the test's outcome is a difference, not a failure."""

    def __init__(self, operation_id: str, expected: int, response: httpx.Response) -> None:
        self.operation_id = operation_id
        self.expected = expected
        super().__init__(
            f"{operation_id}: expected {expected}, got {response.status_code}: "
            f"{response.text[:300]}"
        )


def expect_status_rule(response: httpx.Response, expected: int, operation_id: str) -> None:
    """Assert the 4xx a status rule of ``operation_id`` gives. Another 4xx raises
    :class:`StatusRuleBreach`; anything else (accepted, 5xx) is a plain failure everywhere."""
    if response.status_code == expected:
        return
    if 400 <= response.status_code < 500:
        raise StatusRuleBreach(operation_id, expected, response)
    raise AssertionError(
        f"{operation_id}: expected {expected}, got {response.status_code}: {response.text[:300]}"
    )


class TargetClient:
    """A small synchronous client for one target and one API key."""

    def __init__(self, target: Target, api_key: str | None = None, *, retries: int = 3) -> None:
        self.target = target
        self.api_key = api_key if api_key is not None else target.api_key
        self.retries = retries
        self._http = httpx.Client(base_url=target.base_url, timeout=httpx.Timeout(30.0))
        self._lock = threading.Lock()
        self._last_request = 0.0

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> TargetClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ requests
    def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        content: bytes | None = None,
        headers: dict[str, str] | None = None,
        auth: bool = True,
        api_key: str | None = None,
    ) -> httpx.Response:
        """Send one request; ``path`` starts with ``/v1``. 429/503 are retried after Retry-After."""
        self._guard(method, path, json)
        all_headers: dict[str, str] = {"Accept": "application/json"}
        key = api_key if api_key is not None else self.api_key
        if auth and key:
            all_headers["Authorization"] = f"Bearer {key}"
        if json is not None:
            content = orjson.dumps(json)
        if content is not None:
            all_headers["Content-Type"] = "application/json"
        all_headers.update(headers or {})
        for attempt in range(self.retries + 1):
            self._pace()
            response = self._http.request(method, path, content=content, headers=all_headers)
            if response.status_code not in (429, 503) or attempt == self.retries:
                return response
            time.sleep(_retry_after_seconds(response))
        raise AssertionError("unreachable")

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return self.request("GET", path, **kw)

    def post(self, path: str, **kw: Any) -> httpx.Response:
        return self.request("POST", path, **kw)

    # ------------------------------------------------------------------ helpers
    def create_model_resources(self, base_model: str) -> dict[str, Any]:
        """LoRA resources: they take up to 5 concurrent sessions (a full-weight one takes 1)."""
        response = self.post(
            wire_path("createModelResources"), json={"base_model": base_model, "lora_enabled": True}
        )
        _expect(response, 200)
        return dict(response.json())

    def start_session(self, model_resources_id: str) -> dict[str, Any]:
        response = self.post(
            wire_path("startTrainingSession"), json={"model_resources_id": model_resources_id}
        )
        _expect(response, 200)
        return dict(response.json())

    def submit_forward_backward(
        self, session_id: str, body: dict[str, Any], key: str | None = None
    ) -> httpx.Response:
        return self.submit_operation(session_id, FORWARD_BACKWARD, body, key)

    def submit_operation(
        self, session_id: str, kind: str, body: dict[str, Any], key: str | None = None
    ) -> httpx.Response:
        """POST an operation of ``kind`` (``"optim-step"``, ``"sample"``, ...) with a key."""
        return self.post(
            operation_path(session_id, kind),
            json=body,
            headers={"Idempotency-Key": key or str(uuid.uuid4())},
        )

    def get_operation(
        self, session_id: str, operation_id: str, kind: str = FORWARD_BACKWARD
    ) -> httpx.Response:
        poll = SPEC_OPERATION_KINDS[kind][1]
        return self.get(wire_path(poll, session_id=session_id, operation_id=operation_id))

    def wait_for_operation(
        self,
        session_id: str,
        operation_id: str,
        *,
        timeout_s: float = 60.0,
        kind: str = FORWARD_BACKWARD,
    ) -> dict[str, Any]:
        """Poll until COMPLETED or FAILED (unknown statuses keep polling); returns the operation."""

        def fetch() -> dict[str, Any]:
            response = self.get_operation(session_id, operation_id, kind)
            _expect(response, 200)
            operation = dict(response.json())
            if "status" not in operation:
                raise AssertionError(
                    f"operation {operation_id} has no `status` (required): {operation}"
                )
            return operation

        return wait_until_terminal(fetch, timeout_s=timeout_s, what=f"operation {operation_id}")

    def run_forward_backward(self, session_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """Submit and wait; returns the terminal operation."""
        return self.run_operation(session_id, FORWARD_BACKWARD, body)

    def run_operation(self, session_id: str, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        """Submit an operation of ``kind`` and wait; returns the terminal operation."""
        response = self.submit_operation(session_id, kind, body)
        _expect(response, 200)
        return self.wait_for_operation(session_id, response.json()["id"], kind=kind)

    def completed_output(self, session_id: str, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        """Run an operation that must complete; its ``output``, offloaded members merged in."""
        operation = self.run_operation(session_id, kind, body)
        if operation["status"] != COMPLETED:
            raise AssertionError(f"{kind} operation did not complete: {operation}")
        output = dict(operation.get("output") or {})
        if output.get("payload_id"):
            output = self.download_offloaded(session_id, output)
        return output

    # ------------------------------------------------------------------ large payloads
    def create_upload_url(self, session_id: str) -> dict[str, Any]:
        response = self.post(wire_path("createPayloadUploadUrl", session_id=session_id))
        _expect(response, 200)
        return dict(response.json())

    def put_presigned(self, url: str, content: bytes) -> httpx.Response:
        """PUT to a presigned URL, without Authorization (the URL is the credential)."""
        return self.request(
            "PUT", url, content=content, headers={"Content-Type": "application/json"}, auth=False
        )

    def upload_payload(self, session_id: str, body: dict[str, Any]) -> str:
        """Upload ``body`` through upload-url and the presigned PUT; returns the ``payload_id``."""
        created = self.create_upload_url(session_id)
        _expect(self.put_presigned(created["upload_url"], orjson.dumps(body)), 200)
        return str(created["payload_id"])

    def download_offloaded(self, session_id: str, output: dict[str, Any]) -> dict[str, Any]:
        """Fetch the offloaded members of ``output`` and merge them over it (without payload_id)."""
        payload_id = output["payload_id"]
        response = self.post(
            wire_path("createPayloadDownloadUrl", session_id=session_id, payload_id=payload_id)
        )
        _expect(response, 200)
        download = self.request("GET", response.json()["download_url"], auth=False)
        _expect(download, 200)
        merged = {k: v for k, v in output.items() if k != "payload_id"}
        merged.update(download.json())
        return merged

    # ------------------------------------------------------------------ internals
    def _pace(self) -> None:
        if self.target.min_interval_s <= 0:
            return
        with self._lock:
            wait = self._last_request + self.target.min_interval_s - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            self._last_request = time.monotonic()

    def _guard(self, method: str, path: str, body: Any) -> None:
        if method.upper() in ("GET", "HEAD", "OPTIONS") or self.target.may_mutate:
            return
        route = find_route(method, path)
        if route is not None and route.operation_id in (ESTIMATE_COST, ESTIMATE_ROLLOUTS):
            return
        if route is None or _KIND_OF_SUBMIT.get(route.operation_id) != FORWARD_BACKWARD:
            raise SafetyViolation(f"{method} {path}: {_why_guarded(method, route)}")
        session = route.path_params.get("session_id")
        if session != self.target.session_id:
            raise SafetyViolation(
                f"forward-backward to session {session!r}: only the session named with "
                "--session-id may be used against a non-emulator target"
            )
        if not (isinstance(body, dict) and body.get("forward_only") is True):
            raise SafetyViolation(
                "forward-backward without forward_only=true would accumulate gradients on a "
                "non-emulator target; pass --allow-mutations"
            )


Operation = TypeVar("Operation")


def _status_field(operation: Any) -> Any:
    return operation.get("status")


def wait_until_terminal(
    fetch: Callable[[], Operation],
    *,
    timeout_s: float = 60.0,
    what: str = "operation",
    status: Callable[[Operation], Any] = _status_field,
) -> Operation:
    """Call ``fetch`` (one GET of an operation) until the operation is COMPLETED or FAILED,
    backing off from 5 ms to 0.5 s between calls; returns it. Raises after ``timeout_s``.
    ``status`` reads the status of what ``fetch`` returns (default: its ``"status"`` item).

    The one polling loop of the contract suite, the reliability proofs and the tests."""
    deadline = time.monotonic() + timeout_s
    delay = 0.005
    while True:
        operation = fetch()
        if status(operation) in TERMINAL_STATUSES:
            return operation
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not terminal after {timeout_s} s: {operation}")
        time.sleep(delay)
        delay = min(delay * 2, 0.5)


def operation_path(session_id: str, kind: str) -> str:
    """The wire path of the POST of operation kind ``kind`` (from the spec)."""
    return wire_path(SPEC_OPERATION_KINDS[kind][0], session_id=session_id)


def _why_guarded(method: str, route: Route | None) -> str:
    suffix = "on a non-emulator target; pass --allow-mutations"
    kind = None if route is None else _KIND_OF_SUBMIT.get(route.operation_id)
    if kind in GUARDED_KINDS:
        return f"{GUARDED_KINDS[kind]} {suffix}"
    payload = route is not None and route.operation_id in PAYLOAD_OPERATIONS
    if payload or (route is None and method.upper() == "PUT"):
        return f"the large-payload protocol stores data {suffix}"
    return f"would create, stop or change something {suffix}"


def _retry_after_seconds(response: httpx.Response) -> float:
    try:
        value = float(response.headers.get("Retry-After", "1"))
    except ValueError:
        value = 1.0
    return min(max(value, 0.0), MAX_RETRY_AFTER_S)


def _expect(response: httpx.Response, status: int) -> None:
    if response.status_code != status:
        raise AssertionError(
            f"{response.request.method} {response.request.url.path}: expected {status}, "
            f"got {response.status_code}: {response.text[:500]}"
        )
