"""Several API keys on one emulator: the test-only routes cannot hurt another key. Each key has
its own clock (bounded moves), and `/_emulator/stats` counts only the caller's queue."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from _checkpoint_helpers import RESOURCES, SESSIONS, new_resources, new_session_on, submit_kind
from _emulator_bodies import TINY, fb_body
from _operation_kind_bodies import OPS, sample_body
from emulator_harness import OTHER_KEY, emulator_test_client, wait_until_terminal
from together_rl_emulator import EmulatorApp
from together_rl_emulator.base._clock import MAX_ADVANCE_S, MAX_OFFSET_S

READY = "MODEL_RESOURCES_STATUS_READY"
STOPPED = "MODEL_RESOURCES_STATUS_STOPPED"
OTHER = {"Authorization": f"Bearer {OTHER_KEY}"}


def _clock(c: httpx.Client, seconds: object, **headers: str) -> httpx.Response:
    return c.post("/_emulator/clock", json={"advance_seconds": seconds}, headers=headers)


def test_one_keys_clock_does_not_expire_another_keys_resources(
    emulator_client: httpx.Client,
) -> None:
    c = emulator_client
    mine = new_resources(c, inactive_timeout=300)["id"]
    r = c.post(RESOURCES, json={"base_model": TINY, "inactive_timeout": 300}, headers=OTHER)
    theirs = r.json()["id"]
    their_now = c.get("/_emulator/clock", headers=OTHER).json()["now"]
    assert _clock(c, 7200).status_code == 200
    assert c.get(f"{RESOURCES}/{mine}").json()["status"] == STOPPED
    assert c.get(f"{RESOURCES}/{theirs}", headers=OTHER).json()["status"] == READY
    assert c.get("/_emulator/clock", headers=OTHER).json()["now"] < their_now + 60
    assert c.get("/_emulator/clock").json()["now"] >= their_now + 7200
    # The other key's own move expires its own resources.
    assert _clock(c, 301, **OTHER).status_code == 200
    assert c.get(f"{RESOURCES}/{theirs}", headers=OTHER).json()["status"] == STOPPED


@pytest.mark.parametrize("seconds", [1e308, -1, MAX_ADVANCE_S + 1, "60", True, None, [60]])
def test_clock_moves_are_bounded(emulator_client: httpx.Client, seconds: object) -> None:
    c = emulator_client
    before = c.get("/_emulator/clock").json()["now"]
    r = _clock(c, seconds)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["param"] == "advance_seconds"
    assert c.get("/_emulator/clock").json()["now"] < before + 60
    resources = new_resources(c)  # the clock still works: resources and sessions can be made
    new_session_on(c, resources["id"])


def test_a_keys_clock_stays_within_a_century(emulator_client: httpx.Client) -> None:
    c = emulator_client
    for _ in range(MAX_OFFSET_S // MAX_ADVANCE_S):
        assert _clock(c, MAX_ADVANCE_S).status_code == 200
    r = _clock(c, MAX_ADVANCE_S)
    assert r.status_code == 400 and r.json()["error"]["param"] == "advance_seconds"
    resources = new_resources(c)
    assert resources["expires_at"] <= "9999-12-31T23:59:59.999Z"
    new_session_on(c, resources["id"])


def test_stats_count_only_the_callers_queued_operations(
    emulator_app_factory: Callable[..., EmulatorApp],
) -> None:
    app = emulator_app_factory(timing="fixed 3000")  # the first operation holds the others
    with emulator_test_client(app) as c:
        session = new_session_on(c, new_resources(c)["id"])["id"]
        for key in ("a", "b", "c"):
            assert submit_kind(c, session, "forward-backward", fb_body(), key).status_code == 200
        mine = c.get("/_emulator/stats").json()["queued_operations"]
        theirs = c.get("/_emulator/stats", headers=OTHER).json()["queued_operations"]
    assert mine >= 2 and theirs == 0


def _unseeded_samples(c: httpx.Client, session: str, key: str, **headers: str) -> list[Any]:
    body = sample_body([1, 2, 3], max_tokens=12, num_samples=2)
    r = submit_kind(c, session, "sample", body, key, **headers)
    assert r.status_code == 200, r.text
    op = wait_kind_as(c, session, r.json()["id"], headers)
    assert op["status"] == "TRAINING_OPERATION_STATUS_COMPLETED", op
    return [s["tokens"] for r in op["output"]["results"] for s in r["sequences"]]


def wait_kind_as(c: httpx.Client, session: str, op_id: str, headers: dict[str, str]) -> Any:
    path = f"{OPS.format(session, 'sample')}/{op_id}"
    return wait_until_terminal(lambda: c.get(path, headers=headers).json(), what=path)


def _session_as(c: httpx.Client, headers: dict[str, str]) -> str:
    r = c.post(RESOURCES, json={"base_model": TINY}, headers=headers)
    r = c.post(SESSIONS, json={"model_resources_id": r.json()["id"]}, headers=headers)
    assert r.status_code == 200, r.text
    session_id: str = r.json()["id"]
    return session_id


def test_an_unseeded_sample_depends_only_on_its_own_sessions_history(
    emulator_app_factory: Callable[..., EmulatorApp],
) -> None:
    """The same calls of one key on two fresh emulators give the same unseeded samples, even
    when another key (and another session of the same key) worked in between on the second."""
    quiet = emulator_app_factory()
    with emulator_test_client(quiet) as c:
        session = _session_as(c, {})
        expected = [_unseeded_samples(c, session, f"s{i}") for i in range(2)]
    busy = emulator_app_factory()
    with emulator_test_client(busy) as c:
        theirs = _session_as(c, OTHER)  # another key's session, created first
        _unseeded_samples(c, theirs, "t0", **OTHER)
        session = _session_as(c, {})
        _unseeded_samples(c, theirs, "t1", **OTHER)
        got = [_unseeded_samples(c, session, "s0")]
        mine_too = _session_as(c, {})  # the same key's other session, busy in between
        _unseeded_samples(c, mine_too, "m0")
        got.append(_unseeded_samples(c, session, "s1"))
    assert got == expected
    assert expected[0] != expected[1]  # each operation draws its own seed
