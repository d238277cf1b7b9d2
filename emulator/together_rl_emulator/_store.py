"""The emulator's state: SQLite (in memory, or a WAL file under the state dir) plus numpy arrays.

Every method that changes state commits before it returns, so an HTTP answer is only sent for
state that is durable. With a state dir, SQLite runs in WAL mode with `synchronous=FULL`, and the
arrays (policy weights, accumulated gradients) are `.npz` files written to a temporary name,
fsynced and renamed. Accumulated gradients are versioned (`grads-<n>.npz`, n = accumulated passes):
the database row names the current version, so a crash between writing a file and committing
the row leaves the old version in force, and the operation is simply run again on restart.

One lock serialises every access; the connection is shared between the event loop and the worker.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from ._policy import PolicyParams, init_policy

F64 = npt.NDArray[np.float64]

DB_FILE = "state.sqlite3"
ARRAYS_DIR = "arrays"
IDEMPOTENCY_TTL_S = 7 * 24 * 3600  # the spec promises at least 24 hours

OP_PENDING = "TRAINING_OPERATION_STATUS_PENDING"
OP_RUNNING = "TRAINING_OPERATION_STATUS_RUNNING"
OP_COMPLETED = "TRAINING_OPERATION_STATUS_COMPLETED"
OP_FAILED = "TRAINING_OPERATION_STATUS_FAILED"
SESSION_RUNNING = "TRAINING_SESSION_STATUS_RUNNING"
SESSION_STOPPED = "TRAINING_SESSION_STATUS_STOPPED"
ERR_SESSION_NOT_ACTIVE = "TRAINING_OPERATION_ERROR_CODE_SESSION_NOT_ACTIVE"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS model_resources (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, seq INTEGER NOT NULL, body BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, ordinal INTEGER NOT NULL UNIQUE,
    vocab_size INTEGER NOT NULL, policy_seed INTEGER NOT NULL, status TEXT NOT NULL,
    body BLOB NOT NULL, accumulated_passes INTEGER NOT NULL DEFAULT 0,
    policy_saved INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS sessions_by_owner ON sessions (owner, ordinal);
CREATE TABLE IF NOT EXISTS operations (
    id TEXT PRIMARY KEY, session_id TEXT NOT NULL, owner TEXT NOT NULL, kind TEXT NOT NULL,
    seq INTEGER NOT NULL UNIQUE, status TEXT NOT NULL, submitted_at REAL NOT NULL,
    request BLOB, output BLOB, error BLOB);
CREATE INDEX IF NOT EXISTS operations_by_status ON operations (status, seq);
CREATE TABLE IF NOT EXISTS idempotency (
    owner TEXT NOT NULL, session_id TEXT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL,
    body_hash TEXT NOT NULL, operation_id TEXT NOT NULL, created_at REAL NOT NULL,
    PRIMARY KEY (owner, session_id, kind, key));
"""


def utc_now() -> str:
    """RFC 3339 UTC timestamp with milliseconds, e.g. `2026-01-02T03:04:05.678Z`."""
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1000):03d}Z"


@dataclass(frozen=True)
class SessionRow:
    id: str
    owner: str
    ordinal: int
    vocab_size: int
    policy_seed: int
    status: str
    body: dict[str, Any]
    accumulated_passes: int


@dataclass(frozen=True)
class OperationRow:
    id: str
    session_id: str
    owner: str
    kind: str
    seq: int
    status: str
    submitted_at: float
    output: bytes | None  # orjson bytes of the `ForwardBackwardResult`
    error: bytes | None  # orjson bytes of the `OperationError`

    def to_json(self) -> bytes:
        """The `ForwardBackwardOperation` body, spliced from the stored bytes (no re-encoding)."""
        head = orjson.dumps({"id": self.id, "status": self.status})[:-1]
        if self.status == OP_COMPLETED and self.output is not None:
            return head + b',"output":' + self.output + b"}"
        if self.status == OP_FAILED and self.error is not None:
            return head + b',"error":' + self.error + b"}"
        return head + b"}"


@dataclass(frozen=True)
class IdempotencyRecord:
    body_hash: str
    operation_id: str


@dataclass(frozen=True)
class NewOperation:
    id: str
    session_id: str
    owner: str
    kind: str
    submitted_at: float
    request: bytes | None  # the raw body, kept only with a state dir (to re-run after a restart)
    idempotency_key: str
    body_hash: str


def _session_row(r: sqlite3.Row) -> SessionRow:
    return SessionRow(
        id=r["id"],
        owner=r["owner"],
        ordinal=r["ordinal"],
        vocab_size=r["vocab_size"],
        policy_seed=r["policy_seed"],
        status=r["status"],
        body=orjson.loads(r["body"]),
        accumulated_passes=r["accumulated_passes"],
    )


def _operation_row(r: sqlite3.Row) -> OperationRow:
    return OperationRow(
        id=r["id"],
        session_id=r["session_id"],
        owner=r["owner"],
        kind=r["kind"],
        seq=r["seq"],
        status=r["status"],
        submitted_at=r["submitted_at"],
        output=r["output"],
        error=r["error"],
    )


class ArrayFiles:
    """Atomic `.npz` files under `<state dir>/arrays/<session id>/`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def session_dir(self, session_id: str) -> Path:
        return self.root / session_id

    def write(self, session_id: str, name: str, arrays: dict[str, F64]) -> None:
        folder = self.session_dir(session_id)
        folder.mkdir(parents=True, exist_ok=True)
        final = folder / f"{name}.npz"
        tmp = folder / f".{name}.{uuid.uuid4().hex}.tmp"
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)  # type: ignore[arg-type]
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, final)
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    def read(self, session_id: str, name: str) -> dict[str, F64] | None:
        path = self.session_dir(session_id) / f"{name}.npz"
        if not path.exists():
            return None
        with np.load(path) as data:
            return {k: np.array(data[k], dtype=np.float64) for k in data.files}

    def remove(self, session_id: str, name: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            (self.session_dir(session_id) / f"{name}.npz").unlink()

    def remove_stale_gradients(self, session_id: str, keep: int) -> None:
        """Delete gradient versions other than `keep` and leftover temporary files."""
        folder = self.session_dir(session_id)
        if not folder.exists():
            return
        for path in folder.iterdir():
            stale_grad = path.name.startswith("grads-") and path.name != f"grads-{keep}.npz"
            if stale_grad or path.name.endswith(".tmp"):
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()


class Store:
    """All persistent state. Thread-safe; every mutating method commits before returning."""

    def __init__(self, state_dir: str | Path | None = None) -> None:
        self.lock = threading.RLock()
        self.persistent = state_dir is not None
        self.files: ArrayFiles | None = None
        if state_dir is None:
            self._db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        else:
            root = Path(state_dir)
            root.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                str(root / DB_FILE), check_same_thread=False, isolation_level=None
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self.files = ArrayFiles(root / ARRAYS_DIR)
        self._db.row_factory = sqlite3.Row
        self._db.executescript(_SCHEMA)
        self._policies: dict[str, PolicyParams] = {}
        self._grads: dict[str, dict[str, F64]] = {}
        self._prune_idempotency()

    def close(self) -> None:
        with self.lock:
            self._db.close()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self.lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _one(self, sql: str, args: tuple[Any, ...]) -> sqlite3.Row | None:
        with self.lock:
            row: sqlite3.Row | None = self._db.execute(sql, args).fetchone()
            return row

    def _prune_idempotency(self) -> None:
        with self._transaction() as db:
            db.execute(
                "DELETE FROM idempotency WHERE created_at < ?", (time.time() - IDEMPOTENCY_TTL_S,)
            )

    # ------------------------------------------------------------------ model resources
    def create_model_resources(self, owner: str, body: dict[str, Any]) -> dict[str, Any]:
        with self._transaction() as db:
            seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM model_resources").fetchone()[0]
            db.execute(
                "INSERT INTO model_resources (id, owner, seq, body) VALUES (?, ?, ?, ?)",
                (body["id"], owner, seq, orjson.dumps(body)),
            )
        return body

    def get_model_resources(self, owner: str, resources_id: str) -> dict[str, Any] | None:
        row = self._one(
            "SELECT body FROM model_resources WHERE id = ? AND owner = ?", (resources_id, owner)
        )
        return None if row is None else dict(orjson.loads(row["body"]))

    # ------------------------------------------------------------------ sessions
    def next_session_ordinal(self) -> int:
        row = self._one("SELECT COALESCE(MAX(ordinal), 0) + 1 AS n FROM sessions", ())
        assert row is not None
        return int(row["n"])

    def create_session(
        self, owner: str, ordinal: int, vocab_size: int, policy_seed: int, body: dict[str, Any]
    ) -> SessionRow:
        with self._transaction() as db:
            db.execute(
                "INSERT INTO sessions (id, owner, ordinal, vocab_size, policy_seed, status, body)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    body["id"],
                    owner,
                    ordinal,
                    vocab_size,
                    policy_seed,
                    body["status"],
                    orjson.dumps(body),
                ),
            )
        return SessionRow(
            body["id"], owner, ordinal, vocab_size, policy_seed, body["status"], body, 0
        )

    def get_session(self, owner: str | None, session_id: str) -> SessionRow | None:
        """The session, if it exists and (unless `owner` is None) belongs to `owner`."""
        if owner is None:
            row = self._one("SELECT * FROM sessions WHERE id = ?", (session_id,))
        else:
            row = self._one(
                "SELECT * FROM sessions WHERE id = ? AND owner = ?", (session_id, owner)
            )
        return None if row is None else _session_row(row)

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
            return [_session_row(r) for r in self._db.execute(sql, args).fetchall()]

    def sessions_of(self, owner: str) -> list[SessionRow]:
        with self.lock:
            rows = self._db.execute(
                "SELECT * FROM sessions WHERE owner = ? ORDER BY ordinal", (owner,)
            ).fetchall()
            return [_session_row(r) for r in rows]

    def stop_session(self, owner: str, session_id: str) -> SessionRow | None:
        """Stop the session and fail its queued operations (SESSION_NOT_ACTIVE), atomically."""
        with self._transaction() as db:
            row = db.execute(
                "SELECT * FROM sessions WHERE id = ? AND owner = ?", (session_id, owner)
            ).fetchone()
            if row is None:
                return None
            session = _session_row(row)
            if session.status == SESSION_STOPPED:
                return session
            body = dict(session.body, status=SESSION_STOPPED, updated_at=utc_now())
            db.execute(
                "UPDATE sessions SET status = ?, body = ? WHERE id = ?",
                (SESSION_STOPPED, orjson.dumps(body), session_id),
            )
            db.execute(
                "UPDATE operations SET status = ?, error = ?, request = NULL"
                " WHERE session_id = ? AND status = ?",
                (OP_FAILED, _not_active_error(), session_id, OP_PENDING),
            )
        return SessionRow(
            session.id, owner, session.ordinal, session.vocab_size, session.policy_seed,
            SESSION_STOPPED, body, session.accumulated_passes,
        )  # fmt: skip

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
        """Store the operation PENDING together with its idempotency record (one transaction)."""
        with self._transaction() as db:
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
                    time.time(),
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
        return _operation_row(row)

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
            return [_operation_row(r) for r in rows]

    def mark_running(self, operation_id: str) -> bool:
        """PENDING -> RUNNING; False if the operation is no longer PENDING (e.g. failed by stop)."""
        with self._transaction() as db:
            cur = db.execute(
                "UPDATE operations SET status = ? WHERE id = ? AND status IN (?, ?)",
                (OP_RUNNING, operation_id, OP_PENDING, OP_RUNNING),
            )
            return cur.rowcount == 1

    def fail_operation(self, operation_id: str, code: str, message: str) -> None:
        with self._transaction() as db:
            db.execute(
                "UPDATE operations SET status = ?, error = ?, request = NULL"
                " WHERE id = ? AND status IN (?, ?)",
                (OP_FAILED, orjson.dumps({"code": code, "message": message}), operation_id,
                 OP_PENDING, OP_RUNNING),
            )  # fmt: skip

    def complete_operation(
        self, operation_id: str, session_id: str, output: bytes, grads: dict[str, F64] | None
    ) -> str:
        """COMPLETED with `output`, adding `grads` (if any) to the session's accumulator.

        If the session stopped meanwhile, the operation FAILS with SESSION_NOT_ACTIVE instead and
        nothing is accumulated. Returns the final status.
        """
        with self.lock:
            session = self.get_session(None, session_id)
            if session is None or session.status != SESSION_RUNNING:
                self.fail_operation(
                    operation_id, ERR_SESSION_NOT_ACTIVE, "The training session is not active."
                )
                return OP_FAILED
            passes = session.accumulated_passes
            new_total: dict[str, F64] | None = None
            if grads is not None:
                old = self.accumulated_gradients(session_id)
                new_total = grads if old is None else {k: old[k] + grads[k] for k in grads}
                passes += 1
                if self.files is not None:
                    self.files.write(session_id, f"grads-{passes}", new_total)
            with self._transaction() as db:
                db.execute(
                    "UPDATE operations SET status = ?, output = ?, request = NULL WHERE id = ?",
                    (OP_COMPLETED, output, operation_id),
                )
                db.execute(
                    "UPDATE sessions SET accumulated_passes = ? WHERE id = ?", (passes, session_id)
                )
            if new_total is not None:
                self._grads[session_id] = new_total
                if self.files is not None:
                    self.files.remove(session_id, f"grads-{passes - 1}")
            return OP_COMPLETED

    # ------------------------------------------------------------------ arrays
    def policy(self, session: SessionRow) -> PolicyParams:
        """The session's policy: cached, else loaded from its file, else initialised by seed."""
        with self.lock:
            cached = self._policies.get(session.id)
            if cached is not None:
                return cached
            arrays = self.files.read(session.id, "policy") if self.files is not None else None
            if arrays is not None:
                params = PolicyParams.from_arrays(arrays)
            else:
                params = init_policy(session.vocab_size, session.policy_seed)
                if self.files is not None:
                    self.files.write(session.id, "policy", params.to_arrays())
                    with self._transaction() as db:
                        db.execute(
                            "UPDATE sessions SET policy_saved = 1 WHERE id = ?", (session.id,)
                        )
            self._policies[session.id] = params
            return params

    def accumulated_gradients(self, session_id: str) -> dict[str, F64] | None:
        """The sum of the gradients of the session's accumulated passes (None before the first).

        This is what the optimizer step (a later issue) consumes; it should then reset the
        accumulator with a method next to this one.
        """
        with self.lock:
            cached = self._grads.get(session_id)
            if cached is not None:
                return cached
            session = self.get_session(None, session_id)
            if session is None or session.accumulated_passes == 0 or self.files is None:
                return None
            arrays = self.files.read(session_id, f"grads-{session.accumulated_passes}")
            if arrays is not None:
                self._grads[session_id] = arrays
            return arrays

    def clean_stale_files(self) -> None:
        """After a restart: drop gradient files no committed row points to."""
        if self.files is None:
            return
        with self.lock:
            rows = self._db.execute("SELECT id, accumulated_passes FROM sessions").fetchall()
        for row in rows:
            self.files.remove_stale_gradients(row["id"], row["accumulated_passes"])


def _not_active_error() -> bytes:
    return orjson.dumps(
        {
            "code": ERR_SESSION_NOT_ACTIVE,
            "message": "The training session was stopped before the operation ran.",
        }
    )
