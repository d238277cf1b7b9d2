"""No existence oracle: a presigned URL with a wrong or missing token on an existing id is
answered exactly like a missing id (status and body), and another key's checkpoint or payload
is looked up with its owner, so the heavy row (the checkpoint's state, the payload's body) is
never read for it: the answer costs what a missing id's costs."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from _checkpoint_helpers import CHECKPOINTS, INFERENCE, new_resources, new_session_on, save
from emulator_harness import OTHER_KEY
from together_rl_emulator import EmulatorApp

OTHER = {"Authorization": f"Bearer {OTHER_KEY}"}
MISSING_CHECKPOINT = "ckpt-00000000-0000-0000-0000-000000000000"


def _shape(r: httpx.Response, *ids: str) -> tuple[int, str, dict[str, str]]:
    text = r.text
    for value in ids:
        text = text.replace(value, "<id>")
    headers = {k: v for k, v in r.headers.items() if k not in ("date", "content-length")}
    return r.status_code, text, headers


def _checkpoint_url(c: httpx.Client) -> tuple[str, str]:
    session = new_session_on(c, new_resources(c)["id"])["id"]
    checkpoint = save(c, session, INFERENCE, "save-1")["id"]
    r = c.get(
        f"{CHECKPOINTS}/{checkpoint}/download", params={"variant": "CHECKPOINT_VARIANT_MERGED"}
    )
    assert r.status_code == 200, r.text
    return checkpoint, r.json()["data"][0]["url"]


@pytest.mark.parametrize("token", ["wrong", "", None])
def test_a_checkpoint_url_with_a_bad_token_looks_like_a_missing_id(
    emulator_client: httpx.Client, token: str | None
) -> None:
    c = emulator_client
    checkpoint, url = _checkpoint_url(c)
    assert c.get(url, headers={"Authorization": ""}).status_code == 200
    bad = re.sub(r"token=[^&]*", "" if token is None else f"token={token}", url)
    missing = bad.replace(checkpoint, MISSING_CHECKPOINT)
    got = c.get(bad, headers={"Authorization": ""})
    assert got.status_code == 404
    assert _shape(got, checkpoint) == _shape(
        c.get(missing, headers={"Authorization": ""}), MISSING_CHECKPOINT
    )


@pytest.mark.parametrize("method", ["GET", "PUT"])
def test_a_payload_url_with_a_bad_token_looks_like_a_missing_id(
    emulator_client: httpx.Client, method: str
) -> None:
    c = emulator_client
    session = new_session_on(c, new_resources(c)["id"])["id"]
    r = c.post(f"/v1/rl/training-sessions/{session}/payloads/upload-url")
    assert r.status_code == 200, r.text
    payload_id, url = r.json()["payload_id"], r.json()["upload_url"]
    bad = url.replace("token=", "token=x")
    missing_id = "payload-" + "0" * len(payload_id.removeprefix("payload-"))
    missing = bad.replace(payload_id, missing_id)
    anonymous: dict[str, Any] = {"headers": {"Authorization": ""}}
    if method == "PUT":
        anonymous["content"] = b"{}"
    got = c.request(method, bad, **anonymous)
    assert got.status_code == 404
    assert _shape(got, payload_id) == _shape(c.request(method, missing, **anonymous), missing_id)


def test_another_keys_checkpoint_is_not_read(
    emulator_app: EmulatorApp, emulator_client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = emulator_client
    checkpoint, _ = _checkpoint_url(c)
    store = emulator_app.emulator.store
    read: list[Any] = []
    one = store._one

    def recording_one(sql: str, args: tuple[Any, ...]) -> Any:
        row = one(sql, args)
        if row is not None and "state" in row.keys():  # noqa: SIM118 (sqlite3.Row: in = values)
            read.append(args)
        return row

    monkeypatch.setattr(store, "_one", recording_one)
    theirs = c.get(f"{CHECKPOINTS}/{checkpoint}", headers=OTHER)
    missing = c.get(f"{CHECKPOINTS}/{MISSING_CHECKPOINT}", headers=OTHER)
    assert _shape(theirs, checkpoint) == _shape(missing, MISSING_CHECKPOINT)
    assert read == []  # the owner is part of the lookup: the state was never fetched
    assert c.get(f"{CHECKPOINTS}/{checkpoint}").status_code == 200
    assert read != []  # (the recording does see the owner's own read)
