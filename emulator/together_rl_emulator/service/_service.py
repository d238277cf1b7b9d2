"""What each endpoint does, independent of HTTP: model resources, sessions, operations.

Every method takes the caller's `owner` (derived from the API key) and raises `ApiError` for
anything it refuses. Another owner's resources are reported exactly like missing ones (404).
"""

from __future__ import annotations

import hmac
import uuid
from typing import Any

import orjson

from ..base import (
    CATALOG,
    SESSION_RUNNING,
    ApiError,
    EmulatorClock,
    PageRequest,
    Stats,
    empty_page,
    found_or_404,
    invalid,
    not_found,
    page_of,
    session_not_active,
    unknown_cursor,
)
from ..checking import (
    DecodedBody,
    RawBody,
    default_sampler_settings,
    scan_body,
    validate_schema,
)
from ..compute import Sampler, TrainerState, derived_seed, global_norm, session_fields
from ..state import (
    PAYLOAD_UPLOAD,
    TYPE_INFERENCE,
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
    resumed_state,
    utc_now,
)
from ._kinds import OperationKind
from ._model_resources import ModelResources
from ._worker import OperationWorker, QueuedOperation

__all__ = ["EmulatorService"]


class EmulatorService:
    def __init__(self, store: Store, worker: OperationWorker, stats: Stats, seed: int) -> None:
        self.store = store
        self.worker = worker
        self.stats = stats
        self.seed = seed
        self.idempotency = IdempotencyGate(store)
        self.clock = EmulatorClock()
        self.model_resources = ModelResources(store, self.clock)
        self.checkpoints = Checkpoints(store)

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

    # ------------------------------------------------------------------ sessions
    def start_session(self, owner: str, body: Any) -> dict[str, Any]:
        validate_schema("SessionCreate", body)
        assert isinstance(body, dict)
        resources = self.model_resources.get(owner, body["model_resources_id"])
        model = CATALOG[resources["base_model"]]
        initial, lineage_seed = self._resumed_state(owner, body, model.name)
        now = utc_now()
        session: dict[str, Any] = {
            "id": f"sess-{uuid.uuid4()}",
            "base_model": model.name,
            "created_at": now,
            "created_by": owner,
            "inference_checkpoints": [],
            "training_checkpoints": [],
            "metadata": body.get("metadata", {}),
            "model_resources_id": resources["id"],
            # int64 fields as decimal strings, as gRPC-gateway emits them (the spec allows both).
            "policy_state": {
                "applied_weights_version": "0",
                "pending_publish": False,
                "target_weights_version": "0",
                "trainer_step": "0",
            },
            "status": SESSION_RUNNING,
            "step": "0",
            "updated_at": now,
        }
        for optional in ("display_name", "lora_config", "resume_from_checkpoint_id"):
            if optional in body:
                session[optional] = body[optional]
        if initial is not None:
            session.update(session_fields(initial))
        # The cap check, the ordinal and the insert must not interleave with another create.
        with self.store.lock:
            self.model_resources.admit_session(owner, resources)
            ordinal = self.store.next_session_ordinal()
            # The n-th session of this key: other keys' sessions do not move it.
            nth = self.store.owner_session_count(owner) + 1
            seed = derived_seed(self.seed, nth) if lineage_seed is None else lineage_seed
            row = self.store.create_session(
                owner, ordinal, model.vocab_size, seed, session, initial
            )
        self.model_resources.touch(resources["id"])
        if self.worker.timing.mode == "realistic":
            self._load(row)
        return row.body

    def _load(self, row: SessionRow) -> None:
        """Build a starting session's trainer state and its sampler (default settings) now, as
        a real session loads its model when it starts: with realistic timing its first operation
        then takes its GPU-model time, not that plus the emulator's set-up (a sampler's first
        preparation over 151,936 tokens takes 50-190 ms of CPU, a first sample's realistic
        time on Qwen3-8B 105 ms)."""
        state = self.store.trainer(row)
        Sampler.shared(state.sampler_params, *default_sampler_settings()).prepare_all()

    def _resumed_state(
        self, owner: str, body: dict[str, Any], base_model: str
    ) -> tuple[TrainerState | None, int | None]:
        """The trainer state and base-weights seed a resumed session starts from (None, None
        for a fresh session)."""
        checkpoint_id = body.get("resume_from_checkpoint_id")
        if checkpoint_id is None:
            return None, None
        row = self.checkpoints.row(owner, checkpoint_id, "resume_from_checkpoint_id")
        if row.base_model != base_model:
            raise invalid(
                "resume_from_checkpoint_id",
                f"{checkpoint_id} was trained from {row.base_model}, but the model resources"
                f" serve {base_model}; resume on resources of {row.base_model}",
            )
        load_optimizer = body.get("load_optimizer")
        if row.type == TYPE_INFERENCE and load_optimizer is True:
            raise invalid(
                "load_optimizer",
                f"{checkpoint_id} is an inference checkpoint: it holds the weights only, no"
                " optimizer state; omit load_optimizer or set it to false, or resume from a"
                " training checkpoint",
            )
        return resumed_state(row, load_optimizer), row.policy_seed

    def update_session(self, owner: str, session_id: str, body: Any) -> dict[str, Any]:
        """PATCH: `display_name` and `metadata` fields set, or removed by an empty string."""
        validate_schema("SessionUpdate", body)
        assert isinstance(body, dict)
        with self.store.lock:
            session = dict(self.check_session(owner, session_id).body)
            if "display_name" in body:
                session.pop("display_name", None)
                if body["display_name"]:
                    session["display_name"] = body["display_name"]
            if "metadata" in body:
                current = session.get("metadata", {})
                session["metadata"] = _merged_metadata(current, body["metadata"])
            session["updated_at"] = utc_now()
            self.store.update_session_body(session_id, session)
        return session

    def check_session(self, owner: str, session_id: str) -> SessionRow:
        """The caller's session (404 if missing or another key's)."""
        found = self.store.get_session(owner, session_id)
        return found_or_404(found, "training session", "session_id", session_id)

    def get_session(self, owner: str, session_id: str) -> dict[str, Any]:
        return self.check_session(owner, session_id).body

    def list_sessions(
        self,
        owner: str,
        page: PageRequest,
        status: list[str] | None,
        created_by: str | None,
        model_resources_id: str | None,
    ) -> dict[str, Any]:
        if created_by not in (None, "me", owner):
            return empty_page(page)  # every session a key can see was created by that key
        before: int | None = None
        if page.after:
            cursor = self.store.get_session(owner, page.after)
            if cursor is None:
                raise unknown_cursor(page.after)
            before = cursor.ordinal
        rows = self.store.list_sessions(owner, before, status, page.limit + 1, model_resources_id)
        return page_of([r.body for r in rows], page)

    def stop_session(self, owner: str, session_id: str) -> dict[str, Any]:
        stopped = found_or_404(
            self.store.stop_session(owner, session_id), "training session", "session_id", session_id
        )
        self.worker.wake()
        return stopped.body

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
                )
            )
        finally:
            self.idempotency.release(outcome)
        self.stats.count_operation_created(owner, kind.name)
        self.model_resources.touch(session.body["model_resources_id"])
        self.worker.submit(
            QueuedOperation(op.id, session.id, arrived_at, request, kind.name, op.seq)
        )
        return op.to_json()

    def _insert_operation(self, op: NewOperation) -> OperationRow:
        try:
            return self.store.insert_operation(op)
        except SessionNotRunning as exc:
            raise session_not_active(exc.status, op.kind) from None

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
        self.check_session(owner, session_id)
        return self._operation_json(kind, owner, session_id, operation_id)

    # ------------------------------------------------------------------ payloads
    def create_upload_url(self, owner: str, session_id: str, base_url: str) -> dict[str, Any]:
        session = self.check_session(owner, session_id)
        token = new_token()
        payload_id = self.store.create_payload(owner, session.id, token)
        return {"payload_id": payload_id, "upload_url": payload_url(base_url, payload_id, token)}

    def create_download_url(
        self, owner: str, session_id: str, payload_id: str, base_url: str
    ) -> dict[str, Any]:
        session = self.check_session(owner, session_id)
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

    # ------------------------------------------------------------------ stats
    def session_stats(self, owner: str) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for row in self.store.sessions_of(owner):
            norm, step, version = 0.0, 0, 0
            if row.accumulated_passes or row.trainer_version:  # else: the initial state
                state = self.store.trainer(row)
                norm = global_norm(state.grads)
                step, version = state.step, state.weights_version
            out[row.id] = {
                "accumulated_passes": row.accumulated_passes,
                "accumulated_grad_norm": norm,
                "status": row.status,
                "step": step,
                "weights_version": version,
            }
        return out


def _merged_metadata(current: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """`current` with each string of `change` set, or removed when empty (nested objects merged
    the same way; an object left empty is removed)."""
    merged = dict(current)
    for key, value in change.items():
        if isinstance(value, dict):
            inner = _merged_metadata(merged.get(key, {}), value)
            if inner:
                merged[key] = inner
            else:
                merged.pop(key, None)
        elif value == "":
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged
