"""What each endpoint does, independent of HTTP: operations and payloads here, model resources
(`model_resources`, `_model_resources.py`), training sessions (`sessions`,
`_training_sessions.py`) and checkpoints (`checkpoints`) as its parts.

Every method takes the caller's `owner` (derived from the API key) and raises `ApiError` for
anything it refuses. Another owner's resources are reported exactly like missing ones (404).
"""

from __future__ import annotations

import hmac
import threading
import uuid
from typing import Any

import orjson

from ..base import (
    ApiError,
    EmulatorClock,
    Stats,
    found_or_404,
    invalid,
    not_found,
    session_not_active,
)
from ..checking import (
    DecodedBody,
    RawBody,
    scan_body,
)
from ..state import (
    PAYLOAD_UPLOAD,
    Checkpoints,
    IdempotencyGate,
    NewOperation,
    OperationRow,
    PayloadRow,
    Replay,
    SessionNotRunning,
    SessionRow,
    Store,
    body_digest,
    effective_body,
    new_token,
    payload_url,
)
from ._kinds import OperationKind
from ._model_resources import ModelResources
from ._training_sessions import TrainingSessions
from ._worker import OperationWorker, QueuedOperation

__all__ = ["EmulatorService"]


class EmulatorService:
    def __init__(self, store: Store, worker: OperationWorker, stats: Stats, seed: int) -> None:
        self.store = store
        self.worker = worker
        self.stats = stats
        self.seed = seed
        self.idempotency = IdempotencyGate(store)
        # Held from an operation's insert (which numbers it in its session) to its enqueue, so
        # the worker runs a session's operations in their stored order, as a restart re-queues
        # them; large bodies are submitted from several threads at once.
        self._numbering = threading.Lock()
        self.clock = EmulatorClock()
        self.model_resources = ModelResources(store, self.clock)
        self.checkpoints = Checkpoints(store)
        self.sessions = TrainingSessions(
            store, worker, self.model_resources, self.checkpoints, seed
        )

    def _check_generator(self, owner: str, session: SessionRow) -> None:
        """Sampling needs a generator: resources created with `num_generator_replicas` 0 are
        trainer-only (docs.together.ai/docs/post-training/grpo: "the model resource needs
        `num_generator_replicas` of 1 or more")."""
        resources_id = session.body["model_resources_id"]
        resources = self.model_resources.get(owner, resources_id)
        if resources["compute_config"]["num_generator_replicas"] < 1:
            raise invalid(
                "session_id",
                f"the session's model resources {resources_id} are trainer-only"
                " (compute_config.num_generator_replicas 0): sampling needs 1 or more generator"
                " replicas; create resources with compute_config.num_generator_replicas >= 1"
                " (the default)",
            )

    # ------------------------------------------------------------------ operations
    def submit_operation(
        self,
        kind: OperationKind,
        owner: str,
        session: SessionRow,
        key: str,
        body: DecodedBody | RawBody | None,
        arrived_at: float,
    ) -> bytes:
        """Validate and enqueue an operation of `kind`; returns its JSON (PENDING, or the
        replayed operation). A body with `payload_id` stands for the uploaded one; `body` is
        None for a kind without a request body. A `lazy_digest` body is digested only when
        a stored record or a valid request needs it (a refused large body never is)."""
        if body is not None and kind.uploadable and body.has_member("payload_id"):
            body = self._uploaded_body(owner, session, body.plain(), kind.fast_decode)

        def body_hash_now() -> str:
            value, scan = (None, scan_body(None)) if body is None else (body.value, body.scan)
            return body_digest(value, scan)

        body_hash = None if body is not None and body.lazy_digest else body_hash_now()
        scope = (owner, session.id, kind.name, key)
        outcome = self.idempotency.begin(scope, body_hash or body_hash_now)
        if isinstance(outcome, Replay):
            self.stats.count_replay(owner, kind.name)
            return self._operation_json(kind.name, owner, session.id, outcome.operation_id)
        try:
            request = None
            if body is not None:
                assert kind.validate is not None  # a kind with a body has a validator
                request = body.validated(kind.validate, session.vocab_size)
            if kind.check_resources is not None:
                resources_id = session.body["model_resources_id"]
                kind.check_resources(
                    request, self.store.get_model_resources(None, resources_id) or {}
                )
            if kind.needs_generator:
                self._check_generator(owner, session)
            op = self._insert_operation(
                NewOperation(
                    id=str(uuid.uuid4()),
                    session_id=session.id,
                    owner=owner,
                    kind=kind.name,
                    submitted_at=arrived_at,
                    request=(orjson.dumps(None) if body is None else body.encoded())
                    if self.store.persistent
                    else None,
                    idempotency_key=key,
                    body_hash=body_hash or body_hash_now(),
                ),
                request,
            )
        finally:
            self.idempotency.release(outcome)
        self.stats.count_operation_created(owner, kind.name)
        self.model_resources.touch(session.body["model_resources_id"])
        return op.to_json()

    def _insert_operation(self, op: NewOperation, request: Any) -> OperationRow:
        """Store ``op`` and queue it for the worker, in one order for every thread."""
        with self._numbering:
            try:
                row = self.store.insert_operation(op)
            except SessionNotRunning as exc:
                raise session_not_active(exc.status, op.kind) from None
            queued = QueuedOperation(
                row.id, op.session_id, op.submitted_at, request, op.kind, row.seq
            )
            self.worker.submit(queued)
        return row

    def _uploaded_body(
        self, owner: str, session: SessionRow, body: dict[str, Any], fast: bool
    ) -> DecodedBody:
        payload_id = body["payload_id"]
        if not isinstance(payload_id, str) or not payload_id:
            raise invalid("payload_id", "must be a non-empty string (the id from upload-url)")
        row = self.store.get_payload(payload_id, owner)
        if row is None or row.session_id != session.id:
            raise not_found("uploaded payload", "payload_id", payload_id)
        if row.kind != PAYLOAD_UPLOAD:
            raise invalid("payload_id", "names an operation result, not an uploaded request body")
        return effective_body(body, row.body, fast=fast)

    def _operation_json(self, kind: str, owner: str, session_id: str, operation_id: str) -> bytes:
        op = self.store.get_operation(owner, session_id, operation_id, kind)
        return found_or_404(op, f"{kind} operation", "operation_id", operation_id).to_json()

    def get_operation(self, kind: str, owner: str, session_id: str, operation_id: str) -> bytes:
        self.sessions.check(owner, session_id)
        return self._operation_json(kind, owner, session_id, operation_id)

    # ------------------------------------------------------------------ payloads
    def create_upload_url(self, owner: str, session_id: str, base_url: str) -> dict[str, Any]:
        session = self.sessions.check(owner, session_id)
        token = new_token()
        payload_id = self.store.create_payload(owner, session.id, token)
        return {"payload_id": payload_id, "upload_url": payload_url(base_url, payload_id, token)}

    def create_download_url(
        self, owner: str, session_id: str, payload_id: str, base_url: str
    ) -> dict[str, Any]:
        session = self.sessions.check(owner, session_id)
        row = self.store.get_payload(payload_id, owner)
        if row is None or row.session_id != session.id or row.body is None:
            raise not_found("payload", "payload_id", payload_id)
        return {"download_url": payload_url(base_url, payload_id, row.token)}

    def presigned_payload(self, payload_id: str, token: str | None) -> PayloadRow:
        """The payload its presigned URL names. A missing or wrong token is answered like a
        missing id (404), and checked before the payload's body is read: neither the status
        nor the time tells that the id exists."""
        stored = self.store.payload_token(payload_id)
        given = (token or "").encode()
        if stored is None or not token or not hmac.compare_digest(given, stored.encode()):
            raise not_found("payload", "payload_id", payload_id)
        return found_or_404(self.store.get_payload(payload_id), "payload", "payload_id", payload_id)

    def put_payload(self, payload_id: str, token: str | None, body: bytes) -> None:
        row = self.presigned_payload(payload_id, token)
        if row.kind != PAYLOAD_UPLOAD:
            raise ApiError(
                409, "this payload is an operation result and cannot be overwritten",
                type="conflict_error", param="payload_id", code="payload_read_only",
            )  # fmt: skip
        self.store.put_payload(payload_id, body)

    def payload_body(self, payload_id: str, token: str | None) -> bytes:
        row = self.presigned_payload(payload_id, token)
        if row.body is None:
            raise not_found("uploaded payload", "payload_id", payload_id)
        return row.body

    def requeue_unfinished(self) -> int:
        """After a restart: queue PENDING/RUNNING operations again, in submission order."""
        unfinished: list[OperationRow] = self.store.unfinished_operations()
        for op in unfinished:
            self.worker.submit(
                QueuedOperation(
                    op.id, op.session_id, op.submitted_at, None, op.kind, op.seq, stored=True
                )
            )
        return len(unfinished)
