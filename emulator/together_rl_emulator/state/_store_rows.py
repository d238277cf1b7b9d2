"""The rows of the store's tables as the layers above see them (frozen dataclasses), and the
records they hand it to write. No SQL beyond reading a `sqlite3.Row`."""

from __future__ import annotations

import dataclasses
import sqlite3
import time
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson

from ..base import ERR_SESSION_NOT_ACTIVE, OP_COMPLETED, OP_FAILED, SESSION_NOT_ACTIVE
from ..compute import NewCheckpoint, OperationRecord

__all__ = [
    "PAYLOAD_RESULT",
    "PAYLOAD_UPLOAD",
    "CheckpointRow",
    "IdempotencyRecord",
    "NewCheckpoint",
    "NewOperation",
    "OperationRecord",
    "OperationRow",
    "PayloadRow",
    "ResultPayload",
    "SessionNotRunning",
    "SessionRow",
    "checkpoint_row",
    "not_active_error",
    "operation_row",
    "session_row",
    "utc_now",
]

PAYLOAD_UPLOAD = "upload"
PAYLOAD_RESULT = "result"
_Row = TypeVar("_Row")


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
    started_at: float | None = None  # when it became RUNNING (the ones before it were done)
    predicted_seconds: float | None = None  # how long `--timing` holds it (see `_timing.py`)

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


def _from_columns(cls: type[_Row], r: sqlite3.Row, **special: Any) -> _Row:
    """A row dataclass from the columns of the same names; `special` gives the fields that are
    not a column as stored (decoded JSON, a renamed column)."""
    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    values = {name: r[name] for name in names if name not in special}
    return cls(**values, **special)


def session_row(r: sqlite3.Row) -> SessionRow:
    return _from_columns(SessionRow, r, body=orjson.loads(r["body"]))


def operation_row(r: sqlite3.Row) -> OperationRow:
    return _from_columns(OperationRow, r)


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


@dataclass(frozen=True)
class CheckpointRow:
    id: str
    owner: str
    type: str
    base_model: str
    lora: bool
    vocab_size: int
    policy_seed: int
    token: str
    resource: dict[str, Any]
    state: bytes


def checkpoint_row(r: sqlite3.Row) -> CheckpointRow:
    return _from_columns(CheckpointRow, r, lora=bool(r["lora"]), resource=orjson.loads(r["body"]))


def not_active_error() -> bytes:
    """The `OperationError` of an operation its session's stop failed."""
    return orjson.dumps({"code": ERR_SESSION_NOT_ACTIVE, "message": SESSION_NOT_ACTIVE})
