"""The store's operations table once an operation is stored: read it, run it, fail it (its
insertion with the idempotency record, and its completion, are `_store.py`'s)."""

from __future__ import annotations

import time

import orjson

from ..base import OP_FAILED, OP_PENDING, OP_RUNNING
from ._store_rows import OperationRow, operation_row
from ._store_sessions import SessionTables

__all__ = ["OperationTables"]


class OperationTables(SessionTables):
    """Stored operations' reads and state changes, on top of sessions."""

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
