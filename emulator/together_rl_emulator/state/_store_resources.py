"""The store's tables of model resources (with their expiry), checkpoints, payloads and routed
experts: all their SQL, none of their rules (those are `_model_resources.py`, `_checkpoints.py`,
`_service.py`, `_routed_experts.py`)."""

from __future__ import annotations

import secrets
import sqlite3
import time
import uuid
from typing import Any

import orjson

from ..compute import (
    ROUTED_EXPERTS_TTL_S,
    RoutedExperts,
    decode_selections,
    encode_selections,
)
from ._store_database import Database
from ._store_rows import (
    PAYLOAD_UPLOAD,
    CheckpointRow,
    NewCheckpoint,
    PayloadRow,
    checkpoint_row,
)

__all__ = ["ResourceTables"]

_CHECKPOINT_FILTERS = frozenset({"base_model", "session_id", "type"})


class ResourceTables(Database):
    """Model resources, checkpoints and payloads."""

    def _page_start(
        self, table: str, owner: str, after: str | None
    ) -> tuple[str, list[Any]] | None:
        """The query of the owner's rows of `table` (newest first by `seq`) strictly older than
        the row `after`, as SQL and arguments to extend; None when `after` is not the owner's."""
        sql = f"SELECT body FROM {table} WHERE owner = ?"
        args: list[Any] = [owner]
        if after:
            cursor = self._one(
                f"SELECT seq FROM {table} WHERE id = ? AND owner = ?", (after, owner)
            )
            if cursor is None:
                return None
            sql += " AND seq < ?"
            args.append(cursor["seq"])
        return sql, args

    # ------------------------------------------------------------------ model resources
    def insert_model_resources(self, owner: str, body: dict[str, Any], expires_at: float) -> None:
        """New model resources, with the time they stop unless kept up."""
        with self._transaction() as db:
            seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM model_resources").fetchone()[0]
            db.execute(
                "INSERT INTO model_resources (id, owner, seq, body) VALUES (?, ?, ?, ?)",
                (body["id"], owner, seq, orjson.dumps(body)),
            )
            db.execute(
                "INSERT INTO model_resources_expiry (id, expires_at) VALUES (?, ?)",
                (body["id"], expires_at),
            )

    def push_expiry(self, body: dict[str, Any], until: float, slack: float) -> bool:
        """Move the resources' expiry to `until` with `body` (its new `expires_at`), unless it
        is already within `slack` seconds of it or later; whether it moved."""
        with self._transaction() as db:
            current = db.execute(
                "SELECT expires_at FROM model_resources_expiry WHERE id = ?", (body["id"],)
            ).fetchone()
            if current is not None and current["expires_at"] >= until - slack:
                return False
            db.execute(
                "INSERT OR REPLACE INTO model_resources_expiry (id, expires_at) VALUES (?, ?)",
                (body["id"], until),
            )
            db.execute(
                "UPDATE model_resources SET body = ? WHERE id = ?", (orjson.dumps(body), body["id"])
            )
            return True

    def retire_model_resources(self, body: dict[str, Any]) -> None:
        """Store `body` (stopped) and forget the resources' expiry."""
        with self._transaction() as db:
            db.execute(
                "UPDATE model_resources SET body = ? WHERE id = ?", (orjson.dumps(body), body["id"])
            )
            db.execute("DELETE FROM model_resources_expiry WHERE id = ?", (body["id"],))

    def model_resources_due(self, now: float) -> list[tuple[str, float]]:
        """`(id, expires_at)` of the resources whose expiry is at or before `now`."""
        rows = self._rows(
            "SELECT id, expires_at FROM model_resources_expiry WHERE expires_at <= ?", (now,)
        )
        return [(row["id"], row["expires_at"]) for row in rows]

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
        start = self._page_start("model_resources", owner, after)
        if start is None:
            return None
        sql, args = start
        if statuses:
            sql += " AND json_extract(CAST(body AS TEXT), '$.status') IN"
            sql += f" ({', '.join('?' for _ in statuses)})"
            args.extend(statuses)
        sql += " ORDER BY seq DESC LIMIT ?"
        args.append(limit)
        return [dict(orjson.loads(r["body"])) for r in self._rows(sql, tuple(args))]

    # ------------------------------------------------------------------ checkpoints
    def insert_checkpoint(self, db: sqlite3.Connection, owner: str, new: NewCheckpoint) -> None:
        """Inside the transaction of the operation that saved it (`commit_operation`)."""
        seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM checkpoints").fetchone()[0]
        db.execute(
            "INSERT OR REPLACE INTO checkpoints (id, owner, session_id, seq, type, base_model,"
            " lora, vocab_size, policy_seed, token, body, state)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (new.id, owner, new.session_id, seq, new.type, new.base_model, int(new.lora),
             new.vocab_size, new.policy_seed, secrets.token_urlsafe(24),
             orjson.dumps(new.resource), new.state),
        )  # fmt: skip

    # ------------------------------------------------------------------ routed experts
    def insert_routed_experts(
        self, db: sqlite3.Connection, owner: str, entry: RoutedExperts, now: float
    ) -> None:
        """Inside the transaction of the sample that recorded them (`commit_operation`)."""
        db.execute(
            "INSERT OR REPLACE INTO routed_experts (key, owner, base_model, per_token,"
            " selections, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (entry.key, owner, entry.base_model, int(entry.selections.shape[1]),
             encode_selections(entry.selections), now),
        )  # fmt: skip

    def get_routed_experts(self, owner: str, key: str, now: float) -> RoutedExperts | None:
        """The selections under `key` if they are `owner`'s (None otherwise, as if unknown),
        marked expired ROUTED_EXPERTS_TTL_S seconds after they were stored."""
        row = self._one("SELECT * FROM routed_experts WHERE key = ?", (key,))
        if row is None or row["owner"] != owner:
            return None
        return RoutedExperts(
            key=key,
            base_model=row["base_model"],
            selections=decode_selections(row["selections"], row["per_token"]),
            expired=now > row["created_at"] + ROUTED_EXPERTS_TTL_S,
        )

    def get_checkpoint(self, owner: str | None, checkpoint_id: str) -> CheckpointRow | None:
        """The checkpoint, if it exists and (unless `owner` is None) belongs to `owner`."""
        # The owner is part of the lookup: another key's checkpoint reads no more than a missing
        # one (no existence oracle by timing).
        if owner is None:
            row = self._one("SELECT * FROM checkpoints WHERE id = ?", (checkpoint_id,))
        else:
            row = self._one(
                "SELECT * FROM checkpoints WHERE id = ? AND owner = ?", (checkpoint_id, owner)
            )
        return None if row is None else checkpoint_row(row)

    def checkpoint_token(self, checkpoint_id: str) -> str | None:
        """The presigned URLs' token of a checkpoint (its state not read), None if missing."""
        row = self._one("SELECT token FROM checkpoints WHERE id = ?", (checkpoint_id,))
        return None if row is None else str(row["token"])

    def list_checkpoints(
        self, owner: str, after: str | None, limit: int, filters: dict[str, str | None]
    ) -> list[dict[str, Any]] | None:
        """Newest first, strictly older than checkpoint `after` (None if `after` is not the
        owner's), at most `limit`, matching every non-None column filter."""
        start = self._page_start("checkpoints", owner, after)
        if start is None:
            return None
        sql, args = start
        for column, value in filters.items():
            if column not in _CHECKPOINT_FILTERS:
                raise KeyError(f"checkpoints cannot be filtered by {column!r}")
            if value is not None:
                sql += f" AND {column} = ?"
                args.append(value)
        sql += " ORDER BY seq DESC LIMIT ?"
        args.append(limit)
        return [dict(orjson.loads(r["body"])) for r in self._rows(sql, tuple(args))]

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

    def payload_token(self, payload_id: str) -> str | None:
        """The presigned URL's token of a payload (its body not read), None if missing."""
        row = self._one("SELECT token FROM payloads WHERE id = ?", (payload_id,))
        return None if row is None else str(row["token"])

    def get_payload(self, payload_id: str, owner: str | None = None) -> PayloadRow | None:
        """The payload, if it exists and (unless `owner` is None) belongs to `owner`."""
        if owner is None:
            row = self._one("SELECT * FROM payloads WHERE id = ?", (payload_id,))
        else:
            row = self._one(
                "SELECT * FROM payloads WHERE id = ? AND owner = ?", (payload_id, owner)
            )
        if row is None:
            return None
        return PayloadRow(
            row["id"], row["owner"], row["session_id"], row["token"], row["kind"], row["body"]
        )

    def put_payload(self, payload_id: str, body: bytes) -> None:
        with self._transaction() as db:
            db.execute("UPDATE payloads SET body = ? WHERE id = ?", (body, payload_id))
