"""The store's sessions table: create, read, list and stop sessions (all their SQL, none of
their rules, which are `service/_training_sessions.py`'s)."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import orjson

from ..base import OP_FAILED, OP_PENDING, SESSION_RUNNING, SESSION_STOPPED
from ..compute import TrainerState
from ._store_arrays import trainer_file
from ._store_resources import ResourceTables
from ._store_rows import SessionRow, not_active_error, session_row, utc_now

__all__ = ["SessionTables"]


class SessionTables(ResourceTables):
    """Sessions, on top of model resources, checkpoints and payloads."""

    _trainers: dict[str, TrainerState]  # each session's trainer state, set by `Store`

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
