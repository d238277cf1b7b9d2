"""The store's database: one SQLite connection (in memory, or a WAL file under the state dir),
every table of the emulator, the one lock, transactions, and upgrades of an older state dir."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..base import private_dir, private_file
from ._store_arrays import ArrayFiles

__all__ = ["ARRAYS_DIR", "DB_FILE", "Database"]

DB_FILE = "state.sqlite3"
ARRAYS_DIR = "arrays"

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
    request BLOB, output BLOB, error BLOB, finished_at REAL, started_at REAL,
    predicted_seconds REAL);
CREATE INDEX IF NOT EXISTS operations_by_status ON operations (status, seq);
CREATE INDEX IF NOT EXISTS operations_by_session ON operations (session_id, seq);
CREATE TABLE IF NOT EXISTS idempotency (
    owner TEXT NOT NULL, session_id TEXT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL,
    body_hash TEXT NOT NULL, operation_id TEXT NOT NULL, created_at REAL NOT NULL,
    PRIMARY KEY (owner, session_id, kind, key));
CREATE TABLE IF NOT EXISTS payloads (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, session_id TEXT NOT NULL, token TEXT NOT NULL,
    kind TEXT NOT NULL, body BLOB, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS model_resources_expiry (
    id TEXT PRIMARY KEY, expires_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS model_resources_expiry_by_time ON model_resources_expiry (expires_at);
CREATE TABLE IF NOT EXISTS checkpoints (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, session_id TEXT NOT NULL, seq INTEGER NOT NULL,
    type TEXT NOT NULL, base_model TEXT NOT NULL, lora INTEGER NOT NULL,
    vocab_size INTEGER NOT NULL, policy_seed INTEGER NOT NULL, token TEXT NOT NULL,
    body BLOB NOT NULL, state BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS checkpoints_by_owner ON checkpoints (owner, seq);
CREATE TABLE IF NOT EXISTS routed_experts (
    key TEXT PRIMARY KEY, owner TEXT NOT NULL, base_model TEXT NOT NULL,
    per_token INTEGER NOT NULL, selections BLOB NOT NULL, created_at REAL NOT NULL);
"""
# Columns added after the first release, by table: (name, definition, statement run once after
# adding it).
_ADDED_COLUMNS = {
    "sessions": (
        ("grads_version", "INTEGER NOT NULL DEFAULT 0",
         "UPDATE sessions SET grads_version = accumulated_passes"),
        ("trainer_version", "INTEGER NOT NULL DEFAULT 0", None),
    ),
    "operations": (
        ("finished_at", "REAL", None),
        ("started_at", "REAL", None),
        ("predicted_seconds", "REAL", None),
    ),
}  # fmt: skip


class Database:
    """The connection and its lock; the store's table groups add their methods to it."""

    def __init__(self, state_dir: str | Path | None = None) -> None:
        self.lock = threading.RLock()
        self.persistent = state_dir is not None
        self.files: ArrayFiles | None = None
        if state_dir is None:
            self._db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        else:
            root = private_dir(state_dir)
            for name in (DB_FILE, DB_FILE + "-wal", DB_FILE + "-shm"):
                if name == DB_FILE or (root / name).exists():
                    private_file(root / name)
            self._db = sqlite3.connect(
                str(root / DB_FILE), check_same_thread=False, isolation_level=None
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self.files = ArrayFiles(root / ARRAYS_DIR)
        self._db.row_factory = sqlite3.Row
        self._db.executescript(_SCHEMA)
        self._add_missing_columns()

    def close(self) -> None:
        with self.lock:
            self._db.close()

    def _rows(self, sql: str, args: tuple[Any, ...]) -> list[sqlite3.Row]:
        with self.lock:
            return list(self._db.execute(sql, args).fetchall())

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT), holding `lock`; not nestable."""
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
