"""Idempotency of operation submissions, scoped by (API key, session, operation kind, key).

- unknown key: the caller reserves it, validates, stores the operation and its record in one
  transaction, then releases the reservation;
- known key, same body (`body_digest`: key order and whitespace do not matter): a replay of the
  stored operation;
- known key, different body: 422 with `x-should-retry: false`;
- key reserved by a request still being processed: 409 (the official SDK retries 409s, and the
  retry then finds the stored record).

A state file written before `body_digest` holds records with the older `digest`: the gate
rewrites them once, when it opens the store (`migrate_digests`), so every submission compares
one digest.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from ..base import ApiError
from ..checking import FLOATS, MAX_DEPTH, BodyScan, scan_body
from ._store import Store

__all__ = [
    "DIGEST_SCHEME",
    "IdempotencyGate",
    "Replay",
    "Reservation",
    "Scope",
    "body_digest",
    "canonical_json",
    "digest",
    "migrate_digests",
]

Scope = tuple[str, str, str, str]  # (owner, session_id, kind, idempotency key)


def canonical_json(body: Any) -> bytes:
    """The body re-encoded with sorted keys: the same for any key order and whitespace."""
    try:
        return orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError as exc:  # nesting deeper than orjson can encode
        raise _not_encodable(exc) from exc


def digest(canonical: bytes) -> str:
    """SHA-256 of `canonical_json(body)`: the digest of records stored before `body_digest`."""
    return hashlib.sha256(canonical).hexdigest()


DIGEST_SCHEME = "v2:"  # prefixes every `body_digest`; a stored digest without it is a `digest`


def body_digest(body: Any, scan: BodyScan | None = None) -> str:
    """The idempotency digest of a parsed body: SHA-256 of an unambiguous encoding of it. Equal
    JSON values (any key order or whitespace) give equal digests; any other change, types
    included (`1` and `1.0` differ, as in `canonical_json`), gives another.

    The encoding is a pre-order sequence of framed pieces (`tag length ':' payload`): a long
    list of floats as its doubles (no float formatting, the cost of `canonical_json` on large
    batches), a container holding such a list (or a long list of ints) as its sorted keys and
    values or its items, any other value as its `canonical_json` text (a long list of ints
    as that same text, from the scan). Which encoding a value gets depends on the value only
    (`_body_scan.py`), so the same body always gives the same digest. `scan` is the body's
    scan when the caller has it already (validation uses the same one).
    """
    sha = hashlib.sha256()
    try:
        _feed(sha, body, scan_body(body) if scan is None else scan, 0)
    except orjson.JSONEncodeError as exc:
        raise _not_encodable(exc) from exc
    return DIGEST_SCHEME + sha.hexdigest()


def _feed(sha: Any, value: Any, scan: BodyScan, depth: int) -> None:
    numbers = scan.lists.get(id(value))
    if numbers is not None:  # a list of ints keeps its JSON text: its canonical JSON
        _piece(sha, b"D" if numbers.kind == FLOATS else b"J", numbers.digest_payload())
    elif id(value) not in scan.carriers or depth >= MAX_DEPTH:
        _piece(sha, b"J", sorted_json(value))
    elif type(value) is dict:
        sha.update(b"{%d:" % len(value))
        for key in sorted(value):
            _piece(sha, b"J", orjson.dumps(key))
            _feed(sha, value[key], scan, depth + 1)
    else:
        sha.update(b"[%d:" % len(value))
        for item in value:
            _feed(sha, item, scan, depth + 1)


# Items of a long list encoded per orjson call by `sorted_json`: each call stays short.
_SORTED_JSON_BATCH = 500


def sorted_json(value: Any, depth: int = 0) -> bytes:
    """`orjson.dumps(value, option=OPT_SORT_KEYS)`, the same bytes, made in short calls when
    `value` holds a long list (a batch of 300,000 small samples: one call of a second would
    hold the GIL, and the server would answer nobody meanwhile)."""
    if type(value) is list and len(value) > _SORTED_JSON_BATCH:
        parts = [
            orjson.dumps(value[i : i + _SORTED_JSON_BATCH], option=orjson.OPT_SORT_KEYS)[1:-1]
            for i in range(0, len(value), _SORTED_JSON_BATCH)
        ]
        return b"[" + b",".join(parts) + b"]"
    if type(value) is dict and len(value) < _SORTED_JSON_BATCH and depth < MAX_DEPTH:
        if not all(type(key) is str for key in value):
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)  # orjson says what is wrong
        members = [
            orjson.dumps(key) + b":" + sorted_json(value[key], depth + 1) for key in sorted(value)
        ]
        return b"{" + b",".join(members) + b"}"
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def _piece(sha: Any, tag: bytes, payload: Any) -> None:
    """`payload`: bytes, or an array whose buffer is the bytes."""
    sha.update(tag + b"%d:" % memoryview(payload).nbytes)
    sha.update(payload)


def _not_encodable(exc: orjson.JSONEncodeError) -> ApiError:
    return ApiError(400, f"the JSON body is nested too deeply ({exc})", code="invalid_json")


def migrate_digests(store: Store) -> int:
    """Rewrite the records stored with the older `digest` as `body_digest`s; the number
    rewritten. The emulator stored such an operation's request as the very bytes it digested
    (`canonical_json(body)`), so its body is read back from there; a record whose request is
    missing or is not that body keeps its digest, which no `body_digest` equals (a reuse of its
    key is refused with 422, never given a second operation)."""

    def rehash(stored: str, request: bytes | None) -> str | None:
        if request is None or digest(request) != stored:
            return None
        return body_digest(orjson.loads(request))

    return store.rehash_idempotency(DIGEST_SCHEME, rehash)


@dataclass(frozen=True)
class Replay:
    operation_id: str


@dataclass(frozen=True)
class Reservation:
    scope: Scope


class _DigestNeeded(Exception):
    pass


class IdempotencyGate:
    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._in_flight: set[Scope] = set()
        migrate_digests(store)

    def begin(self, scope: Scope, body_digest: str | Callable[[], str]) -> Replay | Reservation:
        """Replay of a stored operation, or a reservation the caller must `release`.
        `body_digest` may be a function, called (outside the lock: a large body is decoded
        for it) only when a stored record or a request in flight needs it: so a malformed
        body is refused as it would be had it been digested first."""
        if isinstance(body_digest, str):
            return self._begin(scope, body_digest)
        try:
            return self._begin(scope, None)
        except _DigestNeeded:
            return self._begin(scope, body_digest())

    def _begin(self, scope: Scope, body_digest: str | None) -> Replay | Reservation:
        owner, session_id, kind, key = scope
        with self._lock:
            record = self._store.find_idempotency(owner, session_id, kind, key)
            if body_digest is None and (record is not None or scope in self._in_flight):
                raise _DigestNeeded
            if record is not None:
                if record.body_hash != body_digest:
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
            return Reservation(scope)

    def release(self, reservation: Reservation) -> None:
        with self._lock:
            self._in_flight.discard(reservation.scope)
