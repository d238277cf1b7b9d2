"""Idempotency of operation submissions, scoped by (API key, session, operation kind, key).

- unknown key: the caller reserves it, validates, stores the operation and its record in one
  transaction, then releases the reservation;
- known key, same body (canonical hash of the parsed JSON): a replay of the stored operation;
- known key, different body: 422 with `x-should-retry: false`;
- key reserved by a request still being processed: 409 (the official SDK retries 409s, and the
  retry then finds the stored record).
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from typing import Any

import orjson

from ._errors import ApiError
from ._store import Store

__all__ = [
    "IdempotencyGate",
    "Replay",
    "Reservation",
    "Scope",
    "body_hash",
    "canonical_json",
    "digest",
]

Scope = tuple[str, str, str, str]  # (owner, session_id, kind, idempotency key)


def canonical_json(body: Any) -> bytes:
    """The body re-encoded with sorted keys: the same for any key order and whitespace."""
    try:
        return orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError as exc:  # nesting deeper than orjson can encode
        raise ApiError(
            400, f"the JSON body is nested too deeply ({exc})", code="invalid_json"
        ) from exc


def digest(canonical: bytes) -> str:
    return hashlib.sha256(canonical).hexdigest()


def body_hash(body: Any) -> str:
    """SHA-256 of `canonical_json(body)`: key order and whitespace do not matter."""
    return digest(canonical_json(body))


@dataclass(frozen=True)
class Replay:
    operation_id: str


@dataclass(frozen=True)
class Reservation:
    scope: Scope
    body_hash: str


class IdempotencyGate:
    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._in_flight: set[Scope] = set()

    def begin(self, scope: Scope, digest: str) -> Replay | Reservation:
        """Replay of a stored operation, or a reservation the caller must `release`."""
        owner, session_id, kind, key = scope
        with self._lock:
            record = self._store.find_idempotency(owner, session_id, kind, key)
            if record is not None:
                if record.body_hash != digest:
                    raise ApiError(
                        422,
                        "Idempotency-Key: this key was already used with a different request body;"
                        " use a new key for a changed request",
                        type="idempotency_error",
                        param="Idempotency-Key",
                        code="idempotency_key_reused",
                        headers={"x-should-retry": "false"},
                    )
                return Replay(record.operation_id)
            if scope in self._in_flight:
                raise ApiError(
                    409,
                    "Idempotency-Key: a request with this key is still being processed;"
                    " retry in a moment to get its operation",
                    type="conflict_error",
                    param="Idempotency-Key",
                    code="idempotency_key_in_use",
                )
            self._in_flight.add(scope)
            return Reservation(scope, digest)

    def release(self, reservation: Reservation) -> None:
        with self._lock:
            self._in_flight.discard(reservation.scope)
