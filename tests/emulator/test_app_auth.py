"""Bearer auth and tenant isolation: another key's resources are indistinguishable from missing."""

from __future__ import annotations

import httpx
import pytest
from _emulator_bodies import FB, TINY, assert_schema, fb_body, new_session, run_op, stats, submit
from emulator_harness import EMULATOR_KEY, OTHER_KEY, emulator_test_client
from together_rl_emulator import EmulatorApp

OTHER = {"Authorization": f"Bearer {OTHER_KEY}"}

PROTECTED = [
    ("GET", "/v1/rl/supported-models"),
    ("POST", "/v1/rl/model-resources"),
    ("GET", "/v1/rl/model-resources/mr-1"),
    ("POST", "/v1/rl/training-sessions"),
    ("GET", "/v1/rl/training-sessions"),
    ("GET", "/v1/rl/training-sessions/s"),
    ("POST", "/v1/rl/training-sessions/s/stop"),
    ("POST", "/v1/rl/training-sessions/s/operations/forward-backward"),
    ("GET", "/v1/rl/training-sessions/s/operations/forward-backward/o"),
    ("GET", "/_emulator/stats"),
    ("POST", "/_emulator/faults"),
]


@pytest.mark.parametrize("method, path", PROTECTED)
@pytest.mark.parametrize(
    "authorization", [None, "Bearer wrong-key", "Basic dGVzdC1rZXk6", "Bearer ", EMULATOR_KEY]
)
def test_missing_or_unknown_key_is_401(
    emulator_app: EmulatorApp, method: str, path: str, authorization: str | None
) -> None:
    headers = {"Authorization": authorization} if authorization is not None else {}
    with emulator_test_client(emulator_app, api_key=None) as client:
        r = client.request(method, path, headers=headers, json={"base_model": TINY})
    assert r.status_code == 401, r.text
    assert_schema(r.json(), "ErrorData")
    assert r.json()["error"]["type"] == "authentication_error"
    if authorization:
        assert authorization.split()[-1] not in r.text or authorization.split()[-1] == "Bearer"


def test_bearer_scheme_is_case_insensitive(emulator_client: httpx.Client) -> None:
    r = emulator_client.get("/v1/rl/supported-models", headers={"Authorization": "bearer test-key"})
    assert r.status_code == 200


def test_other_keys_resources_are_404(emulator_client: httpx.Client) -> None:
    mr = emulator_client.post("/v1/rl/model-resources", json={"base_model": TINY}).json()
    sid = new_session(emulator_client)
    op = run_op(emulator_client, sid, fb_body(), "k")

    assert (
        emulator_client.get(f"/v1/rl/model-resources/{mr['id']}", headers=OTHER).status_code == 404
    )
    r = emulator_client.post(
        "/v1/rl/training-sessions", json={"model_resources_id": mr["id"]}, headers=OTHER
    )
    assert r.status_code == 404
    assert emulator_client.get(f"/v1/rl/training-sessions/{sid}", headers=OTHER).status_code == 404
    assert (
        emulator_client.post(f"/v1/rl/training-sessions/{sid}/stop", headers=OTHER).status_code
        == 404
    )
    assert submit(emulator_client, sid, fb_body(), "k", **OTHER).status_code == 404
    assert emulator_client.get(f"{FB.format(sid)}/{op['id']}", headers=OTHER).status_code == 404
    # The 404 for another key's session reads exactly like the one for a missing session.
    missing = emulator_client.get("/v1/rl/training-sessions/sess-missing", headers=OTHER).json()
    theirs = emulator_client.get(f"/v1/rl/training-sessions/{sid}", headers=OTHER).json()
    assert missing["error"]["type"] == theirs["error"]["type"]
    assert missing["error"]["code"] == theirs["error"]["code"]

    assert emulator_client.get("/v1/rl/training-sessions", headers=OTHER).json()["data"] == []
    assert stats(emulator_client, **OTHER)["sessions"] == {}
    assert sid in stats(emulator_client)["sessions"]
    # The owner still sees everything, and the session is still running.
    assert emulator_client.get(f"/v1/rl/training-sessions/{sid}").json()["status"] == (
        "TRAINING_SESSION_STATUS_RUNNING"
    )


def test_created_by_is_not_the_key(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    session = emulator_client.get(f"/v1/rl/training-sessions/{sid}").json()
    assert EMULATOR_KEY not in str(session)
    assert session["created_by"].startswith("user-")
