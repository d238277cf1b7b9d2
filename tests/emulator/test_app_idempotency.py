"""Idempotency-Key: required, replays, body mismatch (422), in flight (409), scope, concurrency."""

from __future__ import annotations

import dataclasses
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import orjson
import pytest
from _emulator_bodies import FB, assert_schema, fb_body, new_session, stats, submit, wait_operation
from emulator_harness import OTHER_KEY, LiveEmulator, emulator_test_client
from together_rl_emulator.checking import _fast_decode
from together_rl_emulator.service import _kinds
from together_rl_emulator.state import _store
from together_rl_emulator.web import _handlers


@pytest.mark.parametrize("headers", [{}, {"Idempotency-Key": ""}, {"Idempotency-Key": "has space"}])
def test_missing_or_bad_key_is_400(emulator_client: httpx.Client, headers: dict[str, str]) -> None:
    sid = new_session(emulator_client)
    r = emulator_client.post(FB.format(sid), json=fb_body(), headers=headers)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["param"] == "Idempotency-Key"
    assert stats(emulator_client)["operations_created"] == {}


def test_same_key_same_body_replays_the_operation_as_it_is_now(
    emulator_client: httpx.Client,
) -> None:
    sid = new_session(emulator_client)
    body = fb_body()
    first = submit(emulator_client, sid, body, "key-1").json()
    done = wait_operation(emulator_client, sid, first["id"])
    # Same body with another key order and whitespace: still the same request.
    reordered = orjson.dumps(dict(reversed(list(body.items())))) + b"  "
    r = emulator_client.post(
        FB.format(sid),
        content=reordered,
        headers={"Idempotency-Key": "key-1", "Content-Type": "application/json"},
    )
    assert r.status_code == 200
    assert r.json() == done  # the operation as it is now (COMPLETED), not as first returned
    counters = stats(emulator_client)
    assert counters["operations_created"] == {"forward-backward": 1}
    assert counters["idempotent_replays"] == {"forward-backward": 1}
    assert counters["sessions"][sid]["accumulated_passes"] == 1


def test_same_key_different_body_is_422_not_retryable(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    assert submit(emulator_client, sid, fb_body(seed=1), "key-1").status_code == 200
    r = submit(emulator_client, sid, fb_body(seed=2), "key-1")
    assert r.status_code == 422
    assert r.headers["x-should-retry"] == "false"
    assert_schema(r.json(), "ErrorData")
    assert stats(emulator_client)["operations_created"] == {"forward-backward": 1}


def test_key_scope_is_session_and_api_key(emulator_client: httpx.Client) -> None:
    s1, s2 = new_session(emulator_client), new_session(emulator_client)
    a = submit(emulator_client, s1, fb_body(), "shared").json()
    b = submit(emulator_client, s2, fb_body(), "shared").json()
    assert a["id"] != b["id"]
    other = {"Authorization": f"Bearer {OTHER_KEY}"}
    s3 = new_session(emulator_client, **other)
    c = submit(emulator_client, s3, fb_body(), "shared", **other)
    assert c.status_code == 200
    assert c.json()["id"] not in (a["id"], b["id"])


def test_invalid_body_stores_nothing_and_the_key_stays_usable(
    emulator_client: httpx.Client,
) -> None:
    sid = new_session(emulator_client)
    bad = fb_body()
    bad["loss"]["type"] = "LOSS_TYPE_UNSPECIFIED"
    assert submit(emulator_client, sid, bad, "key-1").status_code == 400
    r = submit(emulator_client, sid, fb_body(), "key-1")
    assert r.status_code == 200
    assert stats(emulator_client)["operations_created"] == {"forward-backward": 1}


def test_large_bodies_decoded_fast_keep_replays_mismatches_and_errors(
    emulator_client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fast decoder (`_fast_decode.py`) behind HTTP: the same body in another key order
    replays, a changed body is 422, and a refused body gets the plain decode's error."""
    fast_decoded: list[bool] = []

    def spy(raw: bytes, parse: Any, *, fast: bool) -> Any:
        decoded = _fast_decode.decode_body(raw, parse, fast=fast)
        fast_decoded.append(decoded.scan.arrays_in_body)  # the fast decoder made it
        return decoded

    monkeypatch.setattr(_handlers, "decode_body", spy)
    sid = new_session(emulator_client)
    body = fb_body(n_samples=2, length=200)
    bad = fb_body(n_samples=2, length=200)
    bad["samples"][1]["loss_fn_inputs"]["weights"]["data"][150] = -1.0
    plain_error = submit(emulator_client, sid, bad, "plain").json()
    assert fast_decoded == [False]  # below FAST_DECODE_MIN_BYTES

    monkeypatch.setattr(_fast_decode, "FAST_DECODE_MIN_BYTES", 0)
    first = submit(emulator_client, sid, body, "key-1").json()
    reordered = orjson.dumps(dict(reversed(list(body.items()))), option=orjson.OPT_INDENT_2)
    replay = emulator_client.post(
        FB.format(sid),
        content=reordered,
        headers={"Idempotency-Key": "key-1", "Content-Type": "application/json"},
    )
    assert replay.status_code == 200 and replay.json()["id"] == first["id"]
    changed = fb_body(n_samples=2, length=200)
    changed["samples"][0]["loss_fn_inputs"]["weights"]["data"][7] += 0.5
    assert submit(emulator_client, sid, changed, "key-1").status_code == 422
    refused = submit(emulator_client, sid, bad, "fast")
    assert refused.status_code == 400 and refused.json() == plain_error
    assert plain_error["error"]["param"] == "samples[1].loss_fn_inputs.weights"
    assert fast_decoded == [False, True, True, True, True]
    counters = stats(emulator_client)
    assert counters["operations_created"] == {"forward-backward": 1}
    assert counters["idempotent_replays"] == {"forward-backward": 1}


def test_same_key_while_first_in_flight_is_409(
    monkeypatch: pytest.MonkeyPatch, live_emulator_factory: Any
) -> None:
    entered, release = threading.Event(), threading.Event()
    fb_kind = _kinds.KINDS["forward-backward"]
    real_validate = fb_kind.validate
    assert real_validate is not None

    def slow_validate(body: object, vocab_size: int, scan: Any) -> Any:
        entered.set()
        release.wait(30)
        return real_validate(body, vocab_size, scan)

    monkeypatch.setitem(
        _kinds.KINDS, "forward-backward", dataclasses.replace(fb_kind, validate=slow_validate)
    )
    monkeypatch.setattr(_handlers, "THREADPOOL_BODY_BYTES", 0)  # validate off the event loop
    live: LiveEmulator = live_emulator_factory()
    with httpx.Client(base_url=live.base_url, headers=live.headers(), timeout=30) as client:
        sid = new_session(client)
        with ThreadPoolExecutor(1) as pool:
            first = pool.submit(submit, client, sid, fb_body(), "key-1")
            assert entered.wait(30)
            second = submit(client, sid, fb_body(), "key-1")
            assert second.status_code == 409
            assert second.json()["error"]["param"] == "Idempotency-Key"
            release.set()
            assert first.result().status_code == 200
        third = submit(client, sid, fb_body(), "key-1")
        assert third.status_code == 200
        assert third.json()["id"] == first.result().json()["id"]


def test_concurrent_duplicates_create_one_operation(live_emulator: LiveEmulator) -> None:
    with httpx.Client(base_url=live_emulator.base_url, headers=live_emulator.headers()) as setup:
        sid = new_session(setup)
    body = fb_body(n_samples=8, length=256)
    clients = [
        httpx.Client(base_url=live_emulator.base_url, headers=live_emulator.headers(), timeout=30)
        for _ in range(8)
    ]
    barrier = threading.Barrier(len(clients))

    def send(client: httpx.Client) -> httpx.Response:
        barrier.wait()
        return submit(client, sid, body, "dup-key")

    try:
        with ThreadPoolExecutor(len(clients)) as pool:
            responses = list(pool.map(send, clients))
    finally:
        for c in clients:
            c.close()
    statuses = sorted(r.status_code for r in responses)
    assert set(statuses) <= {200, 409}
    ids = {r.json()["id"] for r in responses if r.status_code == 200}
    assert len(ids) == 1
    with httpx.Client(base_url=live_emulator.base_url, headers=live_emulator.headers()) as c:
        counters = stats(c)
        assert counters["operations_created"] == {"forward-backward": 1}
        retry = submit(c, sid, body, "dup-key")
        assert retry.json()["id"] in ids


def test_keys_expire_after_the_ttl_and_not_before(
    emulator_app_factory: Any, state_dir: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records older than IDEMPOTENCY_TTL_S are pruned when the emulator starts: a key reused
    before expiry replays its operation; reused after expiry, it creates a new one."""
    assert _store.IDEMPOTENCY_TTL_S >= 24 * 3600  # the spec's minimum
    now = [1_000_000.0]
    monkeypatch.setattr(_store, "clock", lambda: now[0])
    body = fb_body()

    def submit_after_restart(sid: str | None = None) -> tuple[str, str, dict[str, Any]]:
        app = emulator_app_factory(state_dir=state_dir)
        with emulator_test_client(app) as client:
            sid = sid or new_session(client)
            r = submit(client, sid, body, "aging-key")
            assert r.status_code == 200, r.text
            created = stats(client)["operations_created"]
        app.emulator.close()
        return sid, r.json()["id"], created

    sid, first, created = submit_after_restart()
    assert created == {"forward-backward": 1}

    now[0] += _store.IDEMPOTENCY_TTL_S - 60  # not yet expired: a replay
    _, replayed, created = submit_after_restart(sid)
    assert (replayed, created) == (first, {})

    now[0] += 120  # past the TTL since the record was written: pruned at start-up
    _, fresh, created = submit_after_restart(sid)
    assert fresh != first
    assert created == {"forward-backward": 1}
