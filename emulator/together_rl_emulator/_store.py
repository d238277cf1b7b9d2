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
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import orjson

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
from ._trainer import GRADS_CHANGED, TrainerState, TrainerUpdate

__all__ = [
    "ARRAYS_DIR",
    "DB_FILE",
    "IDEMPOTENCY_TTL_S",
    "PAYLOAD_RESULT",
    "PAYLOAD_UPLOAD",
    "ArrayFiles",
    "IdempotencyRecord",
    "NewOperation",
    "OperationRow",
    "PayloadRow",
    "ResultPayload",
    "SessionNotRunning",
    "SessionRow",
    "Store",
    "utc_now",
]

F64 = npt.NDArray[np.float64]

DB_FILE = "state.sqlite3"
ARRAYS_DIR = "arrays"
IDEMPOTENCY_TTL_S = 7 * 24 * 3600  # the spec promises at least 24 hours


def clock() -> float:
    """Seconds since the epoch for idempotency records (a seam: tests age records with it)."""
    return time.time()


_SCHEMA = """
CREATE TABLE IF NOT EXISTS model_resources (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, seq INTEGER NOT NULL, body BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, ordinal INTEGER NOT NULL UNIQUE,
    vocab_size INTEGER NOT NULL, policy_seed INTEGER NOT NULL, status TEXT NOT NULL,
    body BLOB NOT NULL, accumulated_passes INTEGER NOT NULL DEFAULT 0,
    grads_version INTEGER NOT NULL DEFAULT 0, trainer_version INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS sessions_by_owner ON sessions (owner, ordinal);
CREATE TABLE IF NOT EXISTS operations (
    id TEXT PRIMARY KEY, session_id TEXT NOT NULL, owner TEXT NOT NULL, kind TEXT NOT NULL,
    seq INTEGER NOT NULL UNIQUE, status TEXT NOT NULL, submitted_at REAL NOT NULL,
    request BLOB, output BLOB, error BLOB, finished_at REAL);
CREATE INDEX IF NOT EXISTS operations_by_status ON operations (status, seq);
CREATE TABLE IF NOT EXISTS idempotency (
    owner TEXT NOT NULL, session_id TEXT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL,
    body_hash TEXT NOT NULL, operation_id TEXT NOT NULL, created_at REAL NOT NULL,
    PRIMARY KEY (owner, session_id, kind, key));
CREATE TABLE IF NOT EXISTS payloads (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, session_id TEXT NOT NULL, token TEXT NOT NULL,
    kind TEXT NOT NULL, body BLOB, created_at REAL NOT NULL);
"""
# Columns added after the first release, by table: (name, definition, statement run once after
# adding it).
_ADDED_COLUMNS = {
    "sessions": (
        ("grads_version", "INTEGER NOT NULL DEFAULT 0",
         "UPDATE sessions SET grads_version = accumulated_passes"),
        ("trainer_version", "INTEGER NOT NULL DEFAULT 0", None),
    ),
    "operations": (("finished_at", "REAL", None),),
}  # fmt: skip
PAYLOAD_UPLOAD = "upload"
PAYLOAD_RESULT = "result"


def utc_now() -> str:
    """RFC 3339 UTC timestamp with milliseconds, e.g. `2026-01-02T03:04:05.678Z`."""
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1000):03d}Z"


class SessionNotRunning(Exception):
    """An operation submitted to a session that is not RUNNING: `status` is its status."""

    def __init__(self, status: str) -> None:
        super().__init__(status)
        self.status = status


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
    grads_version: int = 0
    trainer_version: int = 0


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
    finished_at: float | None = None  # when it became COMPLETED or FAILED (Unix time)

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
        grads_version=r["grads_version"],
        trainer_version=r["trainer_version"],
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
        finished_at=r["finished_at"],
    )


class ArrayFiles:
    """Atomic `.npz` files under `<state dir>/arrays/<session id>/`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def session_dir(self, session_id: str) -> Path:
        return self.root / session_id

    def write(self, session_id: str, name: str, arrays: Mapping[str, npt.NDArray[Any]]) -> None:
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

    def remove_stale(self, session_id: str, keep: set[str]) -> None:
        """Delete versioned files (`grads-*`, `trainer-*`) not named in `keep` (names without
        `.npz`), and leftover temporary files."""
        folder = self.session_dir(session_id)
        if not folder.exists():
            return
        for path in folder.iterdir():
            versioned = path.name.startswith(("grads-", "trainer-"))
            stale = versioned and path.name.removesuffix(".npz") not in keep
            if stale or path.name.endswith(".tmp"):
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
        self._add_missing_columns()
        self._trainers: dict[str, TrainerState] = {}
        self._prune_idempotency()

    def close(self) -> None:
        with self.lock:
            self._db.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT), holding `lock`; not nestable."""
        with self._transaction() as db:
            yield db

    def execute_script(self, sql: str) -> None:
        """Create the tables another module keeps in this database (idempotent DDL)."""
        with self.lock:
            self._db.executescript(sql)

    def rows(self, sql: str, args: tuple[Any, ...]) -> list[sqlite3.Row]:
        with self.lock:
            return list(self._db.execute(sql, args).fetchall())

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

    def _add_missing_columns(self) -> None:
        """Bring a state dir written by an older emulator up to the current schema."""
        for table, columns in _ADDED_COLUMNS.items():
            with self.lock:
                present = {r["name"] for r in self._db.execute(f"PRAGMA table_info({table})")}
            for name, definition, backfill in columns:
                if name not in present:
                    with self._transaction() as db:
                        db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {definition}")
                        if backfill is not None:
                            db.execute(backfill)

    def _prune_idempotency(self) -> None:
        with self._transaction() as db:
            db.execute(
                "DELETE FROM idempotency WHERE created_at < ?", (clock() - IDEMPOTENCY_TTL_S,)
            )

    # ------------------------------------------------------------------ model resources
    def insert_model_resources(
        self, db: sqlite3.Connection, owner: str, body: dict[str, Any]
    ) -> None:
        seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM model_resources").fetchone()[0]
        db.execute(
            "INSERT INTO model_resources (id, owner, seq, body) VALUES (?, ?, ?, ?)",
            (body["id"], owner, seq, orjson.dumps(body)),
        )

    def update_model_resources(self, db: sqlite3.Connection, body: dict[str, Any]) -> None:
        db.execute(
            "UPDATE model_resources SET body = ? WHERE id = ?", (orjson.dumps(body), body["id"])
        )

    def get_model_resources(self, owner: str | None, resources_id: str) -> dict[str, Any] | None:
        """The resources, if they exist and (unless `owner` is None) belong to `owner`."""
        row = self._one("SELECT owner, body FROM model_resources WHERE id = ?", (resources_id,))
        if row is None or (owner is not None and row["owner"] != owner):
            return None
        return dict(orjson.loads(row["body"]))

    def list_model_resources(
        self, owner: str, after: str | None, statuses: list[str] | None, limit: int
    ) -> list[dict[str, Any]] | None:
        """Newest first, strictly older than the resources `after` (None if `after` is not the
        owner's), at most `limit`, only in `statuses` when given."""
        sql = "SELECT body FROM model_resources WHERE owner = ?"
        args: list[Any] = [owner]
        if after:
            cursor = self._one(
                "SELECT seq FROM model_resources WHERE id = ? AND owner = ?", (after, owner)
            )
            if cursor is None:
                return None
            sql += " AND seq < ?"
            args.append(cursor["seq"])
        if statuses:
            sql += " AND json_extract(CAST(body AS TEXT), '$.status') IN"
            sql += f" ({', '.join('?' for _ in statuses)})"
            args.extend(statuses)
        sql += " ORDER BY seq DESC LIMIT ?"
        args.append(limit)
        return [dict(orjson.loads(r["body"])) for r in self.rows(sql, tuple(args))]

    # ------------------------------------------------------------------ sessions
    def next_session_ordinal(self) -> int:
        row = self._one("SELECT COALESCE(MAX(ordinal), 0) + 1 AS n FROM sessions", ())
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
                self.files.write(body["id"], f"trainer-{trainer_version}", _trainer_file(initial))
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
            session = _session_row(row)
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
                (OP_FAILED, _not_active_error(), time.time(), session_id, OP_PENDING),
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
        return _operation_row(row)

    def find_operation(self, owner: str, operation_id: str) -> OperationRow | None:
        """The owner's operation `operation_id`, whatever its session and kind."""
        row = self._one("SELECT * FROM operations WHERE id = ?", (operation_id,))
        if row is None or row["owner"] != owner:
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
                        self.files.write(session_id, f"trainer-{tv}", _trainer_file(state))
            if session_fields is not None:
                body = dict(body, **session_fields, updated_at=utc_now())
            if record is not None:
                body = record.add_to(body)
            with self._transaction() as db:
                if record is not None:
                    record.insert(db, session.owner)
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
                    self.files.remove_stale(session_id, _versioned_files(passes, gv, tv))
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
        params = init_policy(session.vocab_size, session.policy_seed)
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
            keep = _versioned_files(
                row["accumulated_passes"], row["grads_version"], row["trainer_version"]
            )
            self.files.remove_stale(row["id"], keep)

    # ------------------------------------------------------------------ payloads
    def create_payload(self, owner: str, session_id: str, token: str) -> str:
        """A new upload slot (no body yet); returns its id."""
        payload_id = f"payload-{uuid.uuid4()}"
        with self._transaction() as db:
            db.execute(
                "INSERT INTO payloads (id, owner, session_id, token, kind, body, created_at)"
                " VALUES (?, ?, ?, ?, ?, NULL, ?)",
                (payload_id, owner, session_id, token, PAYLOAD_UPLOAD, time.time()),
            )
        return payload_id

    def get_payload(self, payload_id: str) -> PayloadRow | None:
        row = self._one("SELECT * FROM payloads WHERE id = ?", (payload_id,))
        if row is None:
            return None
        return PayloadRow(
            row["id"], row["owner"], row["session_id"], row["token"], row["kind"], row["body"]
        )

    def put_payload(self, payload_id: str, body: bytes) -> None:
        with self._transaction() as db:
            db.execute("UPDATE payloads SET body = ? WHERE id = ?", (body, payload_id))


class OperationRecord(Protocol):
    """What an operation saves besides its output (a checkpoint), committed with it."""

    def add_to(self, session_body: dict[str, Any]) -> dict[str, Any]:
        """The session resource with the record listed in it."""
        ...

    def insert(self, db: sqlite3.Connection, owner: str) -> None: ...


@dataclass(frozen=True)
class PayloadRow:
    id: str
    owner: str
    session_id: str
    token: str
    kind: str  # PAYLOAD_UPLOAD or PAYLOAD_RESULT
    body: bytes | None  # None until uploaded


@dataclass(frozen=True)
class ResultPayload:
    """The offloaded members of an operation's output: a JSON object, fetched by download URL."""

    id: str
    token: str
    body: bytes


def _trainer_file(state: TrainerState) -> dict[str, npt.NDArray[Any]]:
    arrays = state.to_arrays()
    return {
        k: a for k, a in arrays.items() if not k.startswith("grads/") and k != "accumulated_passes"
    }


def _versioned_files(passes: int, grads_version: int, trainer_version: int) -> set[str]:
    keep = {f"trainer-{trainer_version}"} if trainer_version > 0 else set()
    if passes > 0:
        keep.add(f"grads-{grads_version}")
    return keep


def _not_active_error() -> bytes:
    return orjson.dumps(
        {
            "code": ERR_SESSION_NOT_ACTIVE,
            "message": SESSION_NOT_ACTIVE,
        }
    )
