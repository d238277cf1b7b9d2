"""An idempotency record belongs to its scope: (API key, session, operation kind, key).

Over HTTP a lookup that ignored the API key would never show (another key's session is a 404
before any record is looked up), so it is checked where it lives: the store's records and the
gate that reads them.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from together_rl_emulator.base._errors import ApiError
from together_rl_emulator.state._idempotency import IdempotencyGate, Replay, Reservation
from together_rl_emulator.state._store import IdempotencyRecord, NewOperation, Store

RUNNING = "TRAINING_SESSION_STATUS_RUNNING"
SCOPE = ("owner-a", "sess-1", "forward-backward", "key")


def _store_with_one_record() -> Store:
    store = Store()
    store.create_session("owner-a", 1, 1024, 0, {"id": "sess-1", "status": RUNNING})
    owner, session_id, kind, key = SCOPE
    store.insert_operation(NewOperation("op-1", session_id, owner, kind, 0.0, None, key, "hash"))
    return store


def test_a_record_is_found_only_in_its_own_scope() -> None:
    store = _store_with_one_record()
    assert store.find_idempotency(*SCOPE) == IdempotencyRecord("hash", "op-1")
    others = [
        ("owner-b", "sess-1", "forward-backward", "key"),  # another API key
        ("owner-a", "sess-2", "forward-backward", "key"),
        ("owner-a", "sess-1", "optim-step", "key"),
        ("owner-a", "sess-1", "forward-backward", "other-key"),
    ]
    for scope in others:
        assert store.find_idempotency(*scope) is None, scope
    store.close()


def test_the_gate_replays_only_for_the_same_api_key() -> None:
    store = _store_with_one_record()
    gate = IdempotencyGate(store)
    assert gate.begin(SCOPE, "hash") == Replay("op-1")
    other_key = ("owner-b", *SCOPE[1:])
    outcome = gate.begin(other_key, "hash")
    assert isinstance(outcome, Reservation)  # a new operation, never owner-a's
    gate.release(outcome)
    store.close()


def test_a_lazy_digest_is_computed_only_for_a_record_or_a_request_in_flight() -> None:
    """`begin` with the digest as a function (a large body's, `checking.RawBody`): a new key
    reserves without it; a stored record (replay or 422) and a request in flight (409, after
    the digest, whose plain decoding says first if the body is malformed) call it."""
    store = _store_with_one_record()
    gate = IdempotencyGate(store)
    calls: list[str] = []

    def lazy(value: str) -> Callable[[], str]:
        def digest() -> str:
            calls.append(value)
            return value

        return digest

    new_scope = ("owner-a", "sess-1", "forward-backward", "new-key")
    assert isinstance(gate.begin(new_scope, lazy("h1")), Reservation)
    assert calls == []
    with pytest.raises(ApiError) as in_flight:
        gate.begin(new_scope, lazy("h1"))
    assert in_flight.value.status == 409 and calls == ["h1"]
    assert gate.begin(SCOPE, lazy("hash")) == Replay("op-1")
    with pytest.raises(ApiError) as changed:
        gate.begin(SCOPE, lazy("other"))
    assert changed.value.status == 422 and calls == ["h1", "hash", "other"]
    store.close()
