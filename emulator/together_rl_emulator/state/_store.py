"""The emulator's state: SQLite (in memory, or a WAL file under the state dir) plus numpy arrays.

Every method that changes state commits before it returns, so an HTTP answer is only sent for
state that is durable. With a state dir, SQLite runs in WAL mode with `synchronous=FULL`, and the
arrays are `.npz` files written to a temporary name, fsynced and renamed. Per session:

- `policy.npz`: the initial weights (written once);
- `grads-<g>.npz`: the gradients accumulated since the last optimizer step, g = the row's
  `grads_version` (bumped by every accumulated pass; before any optimizer step it equals the
  number of accumulated passes); absent while nothing is accumulated;
- `trainer-<t>.npz`: everything else of the trainer state (weights, sampler weights, Adam moments,
  step, weights version), t = the row's `trainer_version` (bumped by every optimizer step and
  weights-sync); absent while t = 0 (the initial state, derived from `policy.npz`).

The database row names the versions in force, so a crash between writing a file and committing
the row leaves the old versions in force, and the operation is simply run again on restart.
Large request bodies and offloaded results (the official SDK's payload protocol) are rows of the
`payloads` table.

One lock serialises every access; the connection is shared between the event loop and the worker.

All SQL of the emulator lives in the store: this module (idempotency records, and an operation's
insertion and completion), `_store_trainers.py` (trainer states and their array files),
`_store_operations.py` (a stored operation's reads and state changes), `_store_sessions.py`
(sessions), `_store_resources.py` (model resources and their expiry, checkpoints, payloads) and
`_store_database.py` (the connection, every table, transactions). The features
above it (`_model_resources.py`, `_training_sessions.py`, `_checkpoints.py`, `_service.py`) hold
the rules and call it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import orjson

from ..base import (
    ERR_SESSION_NOT_ACTIVE,
    OP_COMPLETED,
    OP_FAILED,
    OP_PENDING,
    SESSION_NOT_ACTIVE,
    SESSION_RUNNING,
)
from ..compute import GRADS_CHANGED, TrainerState, TrainerUpdate
from ._store_arrays import trainer_file, versioned_files
from ._store_database import ARRAYS_DIR, DB_FILE
from ._store_rows import (
    PAYLOAD_RESULT,
    IdempotencyRecord,
    NewOperation,
    OperationRecord,
    OperationRow,
    ResultPayload,
    SessionNotRunning,
    utc_now,
)
from ._store_trainers import TrainerStates

__all__ = [
    "ARRAYS_DIR",
    "DB_FILE",
    "IDEMPOTENCY_TTL_S",
    "IdempotencyRecord",
    "NewOperation",
    "Store",
]

IDEMPOTENCY_TTL_S = 7 * 24 * 3600  # the spec promises at least 24 hours


def clock() -> float:
    """Seconds since the epoch for idempotency records (a seam: tests age records with it)."""
    return time.time()


class Store(TrainerStates):
    """All persistent state. Thread-safe; every mutating method commits before returning."""

    def __init__(self, state_dir: str | Path | None = None) -> None:
        super().__init__(state_dir)
        self._trainers: dict[str, TrainerState] = {}
        self._prune_idempotency()

    @staticmethod
    def now() -> float:
        """`clock()`, for the layers above (the worker dates routed-expert records with it)."""
        return clock()

    def _prune_idempotency(self) -> None:
        with self._transaction() as db:
            db.execute(
                "DELETE FROM idempotency WHERE created_at < ?", (clock() - IDEMPOTENCY_TTL_S,)
            )

    def rehash_idempotency(
        self, scheme: str, rehash: Callable[[str, bytes | None], str | None]
    ) -> int:
        """Give every idempotency record whose digest lacks the `scheme` prefix the digest
        `rehash(its digest, its operation's stored request)` returns (None: left as it is), in
        one transaction; the number of records rewritten."""
        with self._transaction() as db:
            rows = db.execute(
                "SELECT i.rowid AS record, i.body_hash, o.request FROM idempotency i"
                " LEFT JOIN operations o ON o.id = i.operation_id"
                " WHERE substr(i.body_hash, 1, ?) != ?",
                (len(scheme), scheme),
            ).fetchall()
            rewritten = 0
            for row in rows:
                new = rehash(row["body_hash"], row["request"])
                if new is not None:
                    db.execute(
                        "UPDATE idempotency SET body_hash = ? WHERE rowid = ?", (new, row["record"])
                    )
                    rewritten += 1
        return rewritten

    # ------------------------------------------------------------------ operations
    def find_idempotency(
        self, owner: str, session_id: str, kind: str, key: str
    ) -> IdempotencyRecord | None:
        row = self._one(
            "SELECT body_hash, operation_id FROM idempotency"
            " WHERE owner = ? AND session_id = ? AND kind = ? AND key = ?",
            (owner, session_id, kind, key),
        )
        return None if row is None else IdempotencyRecord(row["body_hash"], row["operation_id"])

    def insert_operation(self, op: NewOperation) -> OperationRow:
        """Store the operation PENDING together with its idempotency record (one transaction).
        Raises `SessionNotRunning` (storing nothing) unless its session is RUNNING: checked in
        the transaction, so a concurrent stop comes either before (refused) or after (the stop
        fails the operation)."""
        with self._transaction() as db:
            found = db.execute("SELECT status FROM sessions WHERE id = ?", (op.session_id,))
            row = found.fetchone()
            if row is None or row["status"] != SESSION_RUNNING:
                raise SessionNotRunning("gone" if row is None else str(row["status"]))
            seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM operations").fetchone()[0]
            db.execute(
                "INSERT INTO operations (id, session_id, owner, kind, seq, status, submitted_at,"
                " request) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    op.id,
                    op.session_id,
                    op.owner,
                    op.kind,
                    seq,
                    OP_PENDING,
                    op.submitted_at,
                    op.request,
                ),
            )
            db.execute(
                "INSERT INTO idempotency (owner, session_id, kind, key, body_hash, operation_id,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    op.owner,
                    op.session_id,
                    op.kind,
                    op.idempotency_key,
                    op.body_hash,
                    op.id,
                    clock(),
                ),
            )
        return OperationRow(
            op.id, op.session_id, op.owner, op.kind, seq, OP_PENDING, op.submitted_at, None, None
        )

    def commit_operation(
        self,
        operation_id: str,
        session_id: str,
        output: bytes,
        update: TrainerUpdate | None,
        result_payload: ResultPayload | None = None,
        session_fields: Mapping[str, Any] | None = None,
        record: OperationRecord | None = None,
    ) -> str:
        """COMPLETED with `output`, the session's trainer state replaced by `update.state` (a
        fork, never the cached object), `result_payload` (an offloaded part of the output) and
        `record` (e.g. a checkpoint) stored and `session_fields` merged into the session
        resource, all in one transaction. If the session stopped meanwhile, the operation FAILS
        with SESSION_NOT_ACTIVE instead and nothing changes. Returns the final status."""
        with self.lock:
            session = self.get_session(None, session_id)
            if session is None or session.status != SESSION_RUNNING:
                self.fail_operation(operation_id, ERR_SESSION_NOT_ACTIVE, SESSION_NOT_ACTIVE)
                return OP_FAILED
            passes, gv, tv = (
                session.accumulated_passes, session.grads_version, session.trainer_version
            )  # fmt: skip
            body = session.body
            if update is not None:
                state = update.state
                passes = state.accumulated_passes
                if update.change == GRADS_CHANGED:
                    gv += 1
                    if self.files is not None:
                        self.files.write(session_id, f"grads-{gv}", state.grads)
                else:
                    tv += 1
                    if self.files is not None:
                        self.files.write(session_id, f"trainer-{tv}", trainer_file(state))
            if session_fields is not None:
                body = dict(body, **session_fields, updated_at=utc_now())
            if record is not None:
                body = record.add_to(body)
            with self._transaction() as db:
                if record is not None:
                    checkpoint = record.checkpoint()
                    if checkpoint is not None:
                        self.insert_checkpoint(db, session.owner, checkpoint)
                    for entry in record.routed_experts():
                        self.insert_routed_experts(db, session.owner, entry, clock())
                db.execute(
                    "UPDATE operations SET status = ?, output = ?, request = NULL, finished_at = ?"
                    " WHERE id = ?",
                    (OP_COMPLETED, output, time.time(), operation_id),
                )
                db.execute(
                    "UPDATE sessions SET accumulated_passes = ?, grads_version = ?,"
                    " trainer_version = ?, body = ? WHERE id = ?",
                    (passes, gv, tv, orjson.dumps(body), session_id),
                )
                if result_payload is not None:
                    db.execute(
                        "INSERT INTO payloads (id, owner, session_id, token, kind, body,"
                        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (result_payload.id, session.owner, session_id, result_payload.token,
                         PAYLOAD_RESULT, result_payload.body, time.time()),
                    )  # fmt: skip
            if update is not None:
                self._trainers[session_id] = update.state
                if self.files is not None:
                    self.files.remove_stale(session_id, versioned_files(passes, gv, tv))
            return OP_COMPLETED
