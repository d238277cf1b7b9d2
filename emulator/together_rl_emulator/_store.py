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

All SQL of the emulator lives in the store: this module (sessions, operations, idempotency
records, trainer state), `_store_resources.py` (model resources and their expiry, checkpoints,
payloads) and `_store_database.py` (the connection, every table, transactions). The features
above it (`_model_resources.py`, `_checkpoints.py`, `_service.py`) hold the rules and call it.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from ._catalog import num_experts_of
from ._errors import SESSION_NOT_ACTIVE
from ._policy_model import PolicyParams, init_policy
from ._spec import (
    ERR_SESSION_NOT_ACTIVE,
    OP_COMPLETED,
    OP_FAILED,
    OP_PENDING,
    OP_RUNNING,
    SESSION_RUNNING,
    SESSION_STOPPED,
)
from ._store_arrays import trainer_file, versioned_files
from ._store_database import ARRAYS_DIR, DB_FILE
from ._store_resources import ResourceTables
from ._store_rows import (
    PAYLOAD_RESULT,
    IdempotencyRecord,
    NewOperation,
    OperationRecord,
    OperationRow,
    ResultPayload,
    SessionNotRunning,
    SessionRow,
    not_active_error,
    operation_row,
    session_row,
    utc_now,
)
from ._trainer import GRADS_CHANGED, TrainerState, TrainerUpdate

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


class Store(ResourceTables):
    """All persistent state. Thread-safe; every mutating method commits before returning."""

    def __init__(self, state_dir: str | Path | None = None) -> None:
        super().__init__(state_dir)
        self._trainers: dict[str, TrainerState] = {}
        self._prune_idempotency()

    def _prune_idempotency(self) -> None:
        with self._transaction() as db:
            db.execute(
                "DELETE FROM idempotency WHERE created_at < ?", (clock() - IDEMPOTENCY_TTL_S,)
            )

    # ------------------------------------------------------------------ sessions
    def next_session_ordinal(self) -> int:
        row = self._one("SELECT COALESCE(MAX(ordinal), 0) + 1 AS n FROM sessions", ())
        assert row is not None
        return int(row["n"])

    def owner_session_count(self, owner: str) -> int:
        """How many sessions `owner` has created (seeds its next session's policy)."""
        row = self._one("SELECT COUNT(*) AS n FROM sessions WHERE owner = ?", (owner,))
        assert row is not None
        return int(row["n"])

    def session_operation_number(self, session_id: str, seq: int) -> int:
        """The place (1, 2, ...) of the operation `seq` among its session's operations."""
        row = self._one(
            "SELECT COUNT(*) AS n FROM operations WHERE session_id = ? AND seq <= ?",
            (session_id, seq),
        )
        assert row is not None
        return int(row["n"])

    def create_session(
        self,
        owner: str,
        ordinal: int,
        vocab_size: int,
        policy_seed: int,
        body: dict[str, Any],
        initial: TrainerState | None = None,
    ) -> SessionRow:
        """Insert a session; `initial` is the trainer state it starts from (a resumed
        checkpoint, whose step `body` states), else the seed's initial policy. Its file is
        written before the row that names it is committed, so a crash in between leaves no
        session."""
        trainer_version = 0
        if initial is not None:
            trainer_version = 1
            if self.files is not None:
                self.files.write(body["id"], f"trainer-{trainer_version}", trainer_file(initial))
        with self._transaction() as db:
            db.execute(
                "INSERT INTO sessions (id, owner, ordinal, vocab_size, policy_seed, status, body,"
                " trainer_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    body["id"],
                    owner,
                    ordinal,
                    vocab_size,
                    policy_seed,
                    body["status"],
                    orjson.dumps(body),
                    trainer_version,
                ),
            )
        if initial is not None:
            self._trainers[body["id"]] = initial
        return SessionRow(
            body["id"], owner, ordinal, vocab_size, policy_seed, body["status"], body, 0, 0,
            trainer_version,
        )  # fmt: skip

    def update_session_body(self, session_id: str, body: dict[str, Any]) -> None:
        with self._transaction() as db:
            db.execute(
                "UPDATE sessions SET body = ? WHERE id = ?", (orjson.dumps(body), session_id)
            )

    def get_session(self, owner: str | None, session_id: str) -> SessionRow | None:
        """The session, if it exists and (unless `owner` is None) belongs to `owner`."""
        if owner is None:
            row = self._one("SELECT * FROM sessions WHERE id = ?", (session_id,))
        else:
            row = self._one(
                "SELECT * FROM sessions WHERE id = ? AND owner = ?", (session_id, owner)
            )
        return None if row is None else session_row(row)

    def list_sessions(
        self,
        owner: str,
        before_ordinal: int | None,
        statuses: list[str] | None,
        limit: int,
        model_resources_id: str | None = None,
    ) -> list[SessionRow]:
        """Newest first, strictly older than `before_ordinal`, at most `limit` rows."""
        sql = "SELECT * FROM sessions WHERE owner = ?"
        args: list[Any] = [owner]
        if model_resources_id is not None:
            sql += " AND json_extract(CAST(body AS TEXT), '$.model_resources_id') = ?"
            args.append(model_resources_id)
        if before_ordinal is not None:
            sql += " AND ordinal < ?"
            args.append(before_ordinal)
        if statuses:
            sql += f" AND status IN ({', '.join('?' for _ in statuses)})"
            args.extend(statuses)
        sql += " ORDER BY ordinal DESC LIMIT ?"
        args.append(limit)
        with self.lock:
            return [session_row(r) for r in self._db.execute(sql, args).fetchall()]

    def sessions_of(self, owner: str) -> list[SessionRow]:
        with self.lock:
            rows = self._db.execute(
                "SELECT * FROM sessions WHERE owner = ? ORDER BY ordinal", (owner,)
            ).fetchall()
            return [session_row(r) for r in rows]

    def stop_session(
        self, owner: str, session_id: str, status: str = SESSION_STOPPED
    ) -> SessionRow | None:
        """Move a running session to `status` (STOPPED, or EXPIRED with its resources) and fail
        its queued operations (SESSION_NOT_ACTIVE), atomically. Any other session is returned
        unchanged."""
        with self._transaction() as db:
            row = db.execute(
                "SELECT * FROM sessions WHERE id = ? AND owner = ?", (session_id, owner)
            ).fetchone()
            if row is None:
                return None
            session = session_row(row)
            if session.status != SESSION_RUNNING:
                return session
            body = dict(session.body, status=status, updated_at=utc_now())
            db.execute(
                "UPDATE sessions SET status = ?, body = ? WHERE id = ?",
                (status, orjson.dumps(body), session_id),
            )
            db.execute(
                "UPDATE operations SET status = ?, error = ?, request = NULL, finished_at = ?"
                " WHERE session_id = ? AND status = ?",
                (OP_FAILED, not_active_error(), time.time(), session_id, OP_PENDING),
            )
        return dataclasses.replace(session, status=status, body=body)

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

    def get_operation(
        self, owner: str | None, session_id: str, operation_id: str, kind: str
    ) -> OperationRow | None:
        row = self._one(
            "SELECT * FROM operations WHERE id = ? AND session_id = ? AND kind = ?",
            (operation_id, session_id, kind),
        )
        if row is None or (owner is not None and row["owner"] != owner):
            return None
        return operation_row(row)

    def find_operation(self, owner: str, operation_id: str) -> OperationRow | None:
        """The owner's operation `operation_id`, whatever its session and kind."""
        row = self._one("SELECT * FROM operations WHERE id = ?", (operation_id,))
        if row is None or row["owner"] != owner:
            return None
        return operation_row(row)

    def session_operations(self, owner: str, session_id: str) -> list[OperationRow]:
        """The owner's operations of `session_id`, in submission order."""
        with self.lock:
            rows = self._db.execute(
                "SELECT * FROM operations WHERE session_id = ? AND owner = ? ORDER BY seq",
                (session_id, owner),
            ).fetchall()
            return [operation_row(r) for r in rows]

    def operation_request(self, operation_id: str) -> bytes | None:
        row = self._one("SELECT request FROM operations WHERE id = ?", (operation_id,))
        return None if row is None else row["request"]

    def unfinished_operations(self) -> list[OperationRow]:
        """PENDING and RUNNING operations in submission order (re-queued after a restart)."""
        with self.lock:
            rows = self._db.execute(
                "SELECT * FROM operations WHERE status IN (?, ?) ORDER BY seq",
                (OP_PENDING, OP_RUNNING),
            ).fetchall()
            return [operation_row(r) for r in rows]

    def mark_running(self, operation_id: str, started_at: float, predicted_seconds: float) -> bool:
        """PENDING -> RUNNING at `started_at`, held `predicted_seconds`; False if the operation
        is no longer PENDING (e.g. failed by stop)."""
        with self._transaction() as db:
            cur = db.execute(
                "UPDATE operations SET status = ?, started_at = ?, predicted_seconds = ?"
                " WHERE id = ? AND status IN (?, ?)",
                (OP_RUNNING, started_at, predicted_seconds, operation_id, OP_PENDING, OP_RUNNING),
            )
            return cur.rowcount == 1

    def fail_operation(self, operation_id: str, code: str, message: str) -> None:
        with self._transaction() as db:
            db.execute(
                "UPDATE operations SET status = ?, error = ?, request = NULL, finished_at = ?"
                " WHERE id = ? AND status IN (?, ?)",
                (OP_FAILED, orjson.dumps({"code": code, "message": message}), time.time(),
                 operation_id, OP_PENDING, OP_RUNNING),
            )  # fmt: skip

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

    # ------------------------------------------------------------------ arrays
    def trainer(self, session: SessionRow) -> TrainerState:
        """The session's trainer state: cached, else loaded from its files, else initialised by
        seed. Never modified: operations change a `fork()` of it and commit that."""
        with self.lock:
            cached = self._trainers.get(session.id)
            if cached is not None:
                return cached
            current = self.get_session(None, session.id) or session
            state = TrainerState.from_policy(self._initial_policy(current))
            if self.files is not None and current.trainer_version > 0:
                arrays = self.files.read(current.id, f"trainer-{current.trainer_version}")
                if arrays is None:
                    raise RuntimeError(f"trainer-{current.trainer_version} of {current.id} missing")
                arrays.update({f"grads/{k}": g for k, g in state.grads.items()})
                arrays["accumulated_passes"] = np.array(0.0)
                state = TrainerState.from_arrays(arrays)
            if self.files is not None and current.accumulated_passes > 0:
                stored = self.files.read(current.id, f"grads-{current.grads_version}")
                if stored is None:
                    raise RuntimeError(f"grads-{current.grads_version} of {current.id} missing")
                state.grads = stored
            state.accumulated_passes = current.accumulated_passes
            self._trainers[session.id] = state
            return state

    def _initial_policy(self, session: SessionRow) -> PolicyParams:
        arrays = self.files.read(session.id, "policy") if self.files is not None else None
        if arrays is not None:
            return PolicyParams.from_arrays(arrays)
        experts = num_experts_of(str(session.body.get("base_model", "")))
        params = init_policy(session.vocab_size, session.policy_seed, experts)
        if self.files is not None:
            self.files.write(session.id, "policy", params.to_arrays())
        return params

    def clean_stale_files(self) -> None:
        """After a restart: drop array files no committed row points to."""
        if self.files is None:
            return
        with self.lock:
            rows = self._db.execute(
                "SELECT id, accumulated_passes, grads_version, trainer_version FROM sessions"
            ).fetchall()
        for row in rows:
            keep = versioned_files(
                row["accumulated_passes"], row["grads_version"], row["trainer_version"]
            )
            self.files.remove_stale(row["id"], keep)
