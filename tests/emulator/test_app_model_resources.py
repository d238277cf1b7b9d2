"""Model resources in the emulator: list, stop (409 / force), extend-expiry, the price estimate,
expiry on the emulator clock, the session caps, and PATCH of sessions."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from _checkpoint_helpers import (
    RESOURCES,
    SESSIONS,
    new_resources,
    new_session_on,
    start_session,
    submit_kind,
)
from _emulator_bodies import assert_schema, fb_body, wait_operation
from emulator_harness import OTHER_KEY, emulator_test_client
from together_rl_emulator import EmulatorApp

READY = "MODEL_RESOURCES_STATUS_READY"
STOPPED = "MODEL_RESOURCES_STATUS_STOPPED"
NOT_ACTIVE = "TRAINING_OPERATION_ERROR_CODE_SESSION_NOT_ACTIVE"


def _advance(c: httpx.Client, seconds: float) -> None:
    r = c.post("/_emulator/clock", json={"advance_seconds": seconds})
    assert r.status_code == 200, r.text


def _stop(c: httpx.Client, resources_id: str, **params: Any) -> httpx.Response:
    return c.post(f"{RESOURCES}/{resources_id}/stop", params=params)


def test_model_resources_are_listed_filtered_paged_and_owned(
    emulator_client: httpx.Client,
) -> None:
    c = emulator_client
    made = [new_resources(c)["id"] for _ in range(3)]
    assert _stop(c, made[0]).status_code == 200
    page = c.get(RESOURCES, params={"limit": 2}).json()
    assert_schema(page, "ModelResourcesListResponse")
    assert [r["id"] for r in page["data"]] == [made[2], made[1]]
    assert page["meta"] == {"has_more": True, "limit": 2, "next_cursor": made[1]}
    rest = c.get(RESOURCES, params={"after": made[1]}).json()
    assert [r["id"] for r in rest["data"]] == [made[0]]
    stopped = c.get(RESOURCES, params={"status": STOPPED}).json()["data"]
    assert [r["id"] for r in stopped] == [made[0]]
    both = c.get(RESOURCES, params={"status": f"{READY},{STOPPED}", "created_by": "me"}).json()
    assert len(both["data"]) == 3
    assert c.get(RESOURCES, params={"created_by": "user-someone"}).json()["data"] == []
    other = {"Authorization": f"Bearer {OTHER_KEY}"}
    assert c.get(RESOURCES, headers=other).json()["data"] == []
    assert c.post(f"{RESOURCES}/{made[2]}/stop", headers=other).status_code == 404
    assert c.get(RESOURCES, params={"status": "READY"}).status_code == 400


@pytest.mark.parametrize("route", [RESOURCES, SESSIONS])
@pytest.mark.parametrize(
    ("value", "named"),
    [
        ("", "an empty value (status=) must have at least 1 item"),
        (",", "'' is not one of ["),
        ("READY", "'READY' is not one of ["),
        ("TRAINING_SESSION_STATUS_UNSPECIFIED", "'TRAINING_SESSION_STATUS_UNSPECIFIED' is not"),
    ],
)
def test_a_status_filter_that_is_empty_or_unknown_is_400_naming_it(
    emulator_client: httpx.Client, route: str, value: str, named: str
) -> None:
    """`?status=` with no value, or a value outside the filter's enum, is refused (the spec's
    schema; schemathesis' ST201 found the empty one accepted)."""
    refused = emulator_client.get(route, params={"status": value})
    assert refused.status_code == 400, refused.text
    error = refused.json()["error"]
    assert error["param"] == "status"
    assert error["message"].startswith(f"status: {named}"), error


def test_stop_refuses_running_sessions_unless_forced(
    emulator_app_factory: Any,
) -> None:
    app: EmulatorApp = emulator_app_factory(op_latency_ms=600_000)  # operations stay queued
    with emulator_test_client(app) as c:
        resources = new_resources(c, lora_enabled=True)["id"]
        sessions = [new_session_on(c, resources)["id"] for _ in range(2)]
        queued = c.post(
            f"{SESSIONS}/{sessions[0]}/operations/forward-backward",
            json=fb_body(), headers={"Idempotency-Key": "q"},
        ).json()  # fmt: skip
        refused = _stop(c, resources)
        assert refused.status_code == 409
        assert refused.headers["x-should-retry"] == "false"
        assert all(s in refused.json()["error"]["message"] for s in sessions)
        assert c.get(f"{RESOURCES}/{resources}").json()["status"] == READY

        forced = _stop(c, resources, force="true")
        assert forced.status_code == 200 and forced.json()["status"] == STOPPED
        for sid in sessions:
            status = c.get(f"{SESSIONS}/{sid}").json()["status"]
            assert status == "TRAINING_SESSION_STATUS_STOPPED"
        failed = wait_operation(c, sessions[0], queued["id"])
        assert failed["error"]["code"] == NOT_ACTIVE
        again_stopped = _stop(c, resources)  # the official SDK expects a 400 and reads it
        assert again_stopped.status_code == 400, again_stopped.text
        assert STOPPED in again_stopped.json()["error"]["message"]
        assert again_stopped.json()["error"]["param"] == "model_resources_id"
        assert c.get(f"{RESOURCES}/{resources}").json() == forced.json()  # nothing changed
        again = start_session(c, resources)
        assert again.status_code == 400 and STOPPED in again.json()["error"]["message"]
        extend = c.post(f"{RESOURCES}/{resources}/extend-expiry", json={"seconds": 60})
        assert extend.status_code == 400 and READY in extend.json()["error"]["message"]


def test_extend_expiry_moves_expires_at_later_never_earlier(emulator_client: httpx.Client) -> None:
    c = emulator_client
    resources = new_resources(c, inactive_timeout=600)
    first = resources["expires_at"]
    later = c.post(f"{RESOURCES}/{resources['id']}/extend-expiry", json={"seconds": 7200})
    assert later.status_code == 200 and later.json()["expires_at"] > first
    earlier = c.post(f"{RESOURCES}/{resources['id']}/extend-expiry", json={"seconds": 60})
    assert earlier.json()["expires_at"] == later.json()["expires_at"]
    for seconds, problem in ((59, "minimum of 60"), (86401, "maximum of 86400"), ("60", "integer")):
        bad = c.post(f"{RESOURCES}/{resources['id']}/extend-expiry", json={"seconds": seconds})
        assert bad.status_code == 400 and bad.json()["error"]["param"] == "seconds"
        assert problem in bad.json()["error"]["message"], bad.text
    longest = c.post(f"{RESOURCES}/{resources['id']}/extend-expiry", json={"seconds": 86400})
    assert longest.status_code == 200 and longest.json()["expires_at"] > later.json()["expires_at"]


@pytest.mark.parametrize(
    ("body", "price"),
    [
        ({"lora_enabled": True, "compute_config": {"num_generator_replicas": 0}}, 4.0),
        ({"lora_enabled": True, "compute_config": {"num_generator_replicas": 1}}, 8.0),
        ({}, 8.0),  # the spec's defaults: lora_enabled true, one generator replica
        ({"lora_enabled": False}, 12.0),
        ({"lora_enabled": False, "compute_config": {"num_generator_replicas": 2}}, 16.0),
    ],
)
def test_estimate_cost_follows_the_documented_price_table(
    emulator_client: httpx.Client, body: dict[str, Any], price: float
) -> None:
    r = emulator_client.post(f"{RESOURCES}/estimate-cost", json={"base_model": "emulator/tiny-1k",
                                                                 **body})  # fmt: skip
    assert r.status_code == 200, r.text
    assert r.json() == {"currency": "USD", "price_per_hour": price}
    assert emulator_client.get(RESOURCES).json()["data"] == []  # nothing was created
    unknown = emulator_client.post(f"{RESOURCES}/estimate-cost", json={"base_model": "x/y"})
    assert unknown.status_code == 400 and unknown.json()["error"]["param"] == "base_model"


def test_idle_resources_stop_and_their_sessions_expire(emulator_app_factory: Any) -> None:
    """On the emulator clock: every operation pushes `expires_at` to now + inactive_timeout;
    past it the resources are STOPPED, their sessions EXPIRED, queued operations FAILED."""
    app: EmulatorApp = emulator_app_factory(op_latency_ms=600_000)
    with emulator_test_client(app) as c:
        resources = new_resources(c, inactive_timeout=300, lora_enabled=True)["id"]
        sid = new_session_on(c, resources)["id"]
        _advance(c, 225)
        op = submit_kind(c, sid, "forward-backward", fb_body(), "k").json()  # pushes expiry
        _advance(c, 225)  # 450 s after creation, 225 s after the operation: still up
        assert c.get(f"{RESOURCES}/{resources}").json()["status"] == READY
        _advance(c, 76)
        assert c.get(f"{RESOURCES}/{resources}").json()["status"] == STOPPED
        session = c.get(f"{SESSIONS}/{sid}").json()
        assert session["status"] == "TRAINING_SESSION_STATUS_EXPIRED"
        assert wait_operation(c, sid, op["id"])["error"]["code"] == NOT_ACTIVE
        assert c.post("/_emulator/clock", json={"advance_seconds": -1}).status_code == 400


def test_default_inactive_timeout_is_an_hour(emulator_client: httpx.Client) -> None:
    c = emulator_client
    resources = new_resources(c)
    assert resources["inactive_timeout"] == 3600
    _advance(c, 3599)
    assert c.get(f"{RESOURCES}/{resources['id']}").json()["status"] == READY
    _advance(c, 2)
    assert c.get(f"{RESOURCES}/{resources['id']}").json()["status"] == STOPPED


@pytest.mark.parametrize(
    ("timeout", "problem"),
    [(0, "minimum of 300"), (299, "minimum of 300"), (86401, "maximum of 86400")],
)
def test_inactive_timeout_outside_its_bounds_is_400(
    emulator_client: httpx.Client, timeout: int, problem: str
) -> None:
    """300-86400 seconds (the official SDK's bounds); 0 is no longer a stand-in for omitted."""
    body = {"base_model": "emulator/tiny-1k", "inactive_timeout": timeout}
    refused = emulator_client.post(RESOURCES, json=body)
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"]["param"] == "inactive_timeout"
    assert problem in refused.json()["error"]["message"]
    assert emulator_client.get(RESOURCES).json()["data"] == []  # nothing was created
    for accepted in (300, 86400):
        assert new_resources(emulator_client, inactive_timeout=accepted)["inactive_timeout"] == (
            accepted
        )


@pytest.mark.parametrize(("lora", "cap"), [(False, 1), (True, 5)])
def test_session_cap_per_model_resources(
    emulator_client: httpx.Client, lora: bool, cap: int
) -> None:
    c = emulator_client
    resources = new_resources(c, lora_enabled=lora)["id"]
    sessions = [new_session_on(c, resources)["id"] for _ in range(cap)]
    refused = start_session(c, resources)
    assert refused.status_code == 429
    assert refused.headers["x-should-retry"] == "false" and "retry-after" in refused.headers
    message = refused.json()["error"]["message"]
    assert f"at most {cap} concurrent" in message and sessions[0] in message
    c.post(f"{SESSIONS}/{sessions[0]}/stop")
    assert start_session(c, resources).status_code == 200  # a stopped session frees its place


def test_patch_session_sets_and_clears_fields(emulator_client: httpx.Client) -> None:
    c = emulator_client
    session = new_session_on(
        c, new_resources(c)["id"], display_name="run",
        metadata={"wandb": {"project": "rl", "run_name": "a"}},
    )  # fmt: skip
    path = f"{SESSIONS}/{session['id']}"
    renamed = c.patch(path, json={"metadata": {"wandb": {"run_name": "b", "entity": "me"}}})
    assert renamed.status_code == 200, renamed.text
    assert_schema(renamed.json(), "Session")
    assert renamed.json()["display_name"] == "run"  # omitted: unchanged
    wandb = {"project": "rl", "run_name": "b", "entity": "me"}
    assert renamed.json()["metadata"] == {"wandb": wandb}
    cleared = c.patch(path, json={"display_name": "", "metadata": {"wandb": {"project": ""}}})
    assert "display_name" not in cleared.json()
    assert cleared.json()["metadata"] == {"wandb": {"run_name": "b", "entity": "me"}}
    assert c.get(path).json() == cleared.json()
    assert c.patch(path, json={"status": "x"}).json()["error"]["param"] == "status"
    other = {"Authorization": f"Bearer {OTHER_KEY}"}
    assert c.patch(path, json={}, headers=other).status_code == 404
