"""Checkpoints in the emulator: training and inference checkpoints, resume (with and without the
optimizer state, bit for bit), idempotent saves, listing, ownership and safetensors downloads."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import httpx
import numpy as np
import pytest
import safetensors.numpy
from _checkpoint_helpers import (
    CHECKPOINTS,
    INFERENCE,
    SESSIONS,
    TRAINING,
    new_resources,
    new_session_on,
    save,
    start_session,
    stored_state,
    submit_kind,
    train_step,
)
from _emulator_bodies import TINY, assert_schema
from emulator_harness import OTHER_KEY
from together_rl_emulator import EmulatorApp

K = 2  # steps before the checkpoint, and after it


def _trajectory(client: httpx.Client, sid: str, first: int, tag: str) -> list[dict[str, Any]]:
    return [train_step(client, sid, step, tag) for step in range(first, first + K)]


def test_resumed_training_equals_the_uninterrupted_run_bit_for_bit(
    emulator_app: EmulatorApp, emulator_client: httpx.Client
) -> None:
    """Checkpoint at step K, resume in a new session, train K more steps: the losses, steps,
    sampled tokens and the final state (weights, sampler weights, Adam moments, step) equal the
    uninterrupted run's exactly."""
    c = emulator_client
    sid = new_session_on(c, new_resources(c)["id"])["id"]
    _trajectory(c, sid, 0, "a")
    checkpoint = save(c, sid, TRAINING, "ckpt")
    assert checkpoint["step"] == str(K)
    uninterrupted = _trajectory(c, sid, K, "a")
    final = save(c, sid, TRAINING, "final")

    resumed_session = new_session_on(
        c, new_resources(c)["id"], resume_from_checkpoint_id=checkpoint["id"]
    )
    assert resumed_session["step"] == str(K)
    assert resumed_session["resume_from_checkpoint_id"] == checkpoint["id"]
    resumed = _trajectory(c, resumed_session["id"], K, "b")
    resumed_final = save(c, resumed_session["id"], TRAINING, "final")

    assert resumed == uninterrupted
    assert stored_state(emulator_app, resumed_final["id"]) == stored_state(
        emulator_app, final["id"]
    )


def test_load_optimizer_false_restores_the_weights_only_at_step_zero(
    emulator_app: EmulatorApp, emulator_client: httpx.Client
) -> None:
    c = emulator_client
    sid = new_session_on(c, new_resources(c)["id"])["id"]
    _trajectory(c, sid, 0, "a")
    checkpoint = save(c, sid, TRAINING, "ckpt")
    weights_only = new_session_on(
        c, new_resources(c)["id"], resume_from_checkpoint_id=checkpoint["id"], load_optimizer=False
    )
    assert weights_only["step"] == "0"
    state = safetensors.numpy.load(stored_state(emulator_app, checkpoint["id"]))
    fresh = save(c, weights_only["id"], TRAINING, "fresh")
    restored = safetensors.numpy.load(stored_state(emulator_app, fresh["id"]))
    for name in ("params/b", "params/W", "params/E"):
        assert np.array_equal(restored[name], state[name])
    moments = [v for k, v in restored.items() if k.startswith(("adam/m/", "adam/v/"))]
    assert all(not v.any() for v in moments)  # a fresh optimizer (no moments yet)
    assert any(k.startswith("adam/m/") for k in state)  # ... where the checkpoint had some
    assert int(restored["step"]) == 0 and int(restored["adam/step"]) == 0
    # With the optimizer (load_optimizer omitted): the moments and the step come back too.
    with_optimizer = new_session_on(
        c, new_resources(c)["id"], resume_from_checkpoint_id=checkpoint["id"]
    )
    again = save(c, with_optimizer["id"], TRAINING, "again")
    assert stored_state(emulator_app, again["id"]) == stored_state(emulator_app, checkpoint["id"])


def test_inference_checkpoint_resumes_weights_only_and_refuses_load_optimizer(
    emulator_client: httpx.Client,
) -> None:
    c = emulator_client
    sid = new_session_on(c, new_resources(c, lora_enabled=True)["id"])["id"]
    train_step(c, sid, 0, "a")
    checkpoint = save(c, sid, INFERENCE, "inf")
    assert checkpoint["registration"]["adapter"]["id"].endswith(checkpoint["id"])
    target = new_resources(c)["id"]
    refused = start_session(c, target, resume_from_checkpoint_id=checkpoint["id"],
                            load_optimizer=True)  # fmt: skip
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert error["param"] == "load_optimizer" and "inference checkpoint" in error["message"]
    resumed = new_session_on(c, target, resume_from_checkpoint_id=checkpoint["id"])
    assert resumed["step"] == "0"


def test_resume_refuses_unknown_foreign_and_other_model_checkpoints(
    emulator_client: httpx.Client, emulator_app: EmulatorApp
) -> None:
    c = emulator_client
    sid = new_session_on(c, new_resources(c)["id"])["id"]
    checkpoint = save(c, sid, TRAINING, "ckpt")
    missing = start_session(c, new_resources(c)["id"], resume_from_checkpoint_id="ckpt-missing")
    assert missing.status_code == 404
    assert missing.json()["error"]["param"] == "resume_from_checkpoint_id"
    other_key = {"Authorization": f"Bearer {OTHER_KEY}"}
    foreign_resources = c.post(
        "/v1/rl/model-resources", json={"base_model": TINY}, headers=other_key
    ).json()
    foreign = c.post(
        SESSIONS,
        json={"model_resources_id": foreign_resources["id"], "resume_from_checkpoint_id":
              checkpoint["id"]},
        headers=other_key,
    )  # fmt: skip
    assert foreign.status_code == 404
    other_model = c.post("/v1/rl/model-resources", json={"base_model": "Qwen/Qwen3-8B"}).json()[
        "id"
    ]
    mismatch = start_session(c, other_model, resume_from_checkpoint_id=checkpoint["id"])
    assert mismatch.status_code == 400 and "trained from" in mismatch.json()["error"]["message"]


def test_a_retried_save_creates_exactly_one_checkpoint(emulator_client: httpx.Client) -> None:
    c = emulator_client
    sid = new_session_on(c, new_resources(c)["id"])["id"]
    first = submit_kind(c, sid, TRAINING, None, "same-key")
    again = submit_kind(c, sid, TRAINING, {}, "same-key")  # `{}` is ignored like no body
    assert first.status_code == again.status_code == 200
    assert first.json()["id"] == again.json()["id"]
    save(c, sid, TRAINING, "same-key")
    listed = c.get(CHECKPOINTS, params={"session_id": sid}).json()["data"]
    assert len(listed) == 1
    save(c, sid, TRAINING, "another-key")
    assert len(c.get(CHECKPOINTS, params={"session_id": sid}).json()["data"]) == 2
    session = c.get(f"{SESSIONS}/{sid}").json()
    assert [ck["id"] for ck in session["training_checkpoints"]] == [
        ck["id"] for ck in reversed(c.get(CHECKPOINTS, params={"session_id": sid}).json()["data"])
    ]


def test_checkpoint_operations_take_no_body(emulator_client: httpx.Client) -> None:
    """The spec defines no body: none (what the official SDK sends) or any JSON object, which
    is ignored; anything else is a 400. The Idempotency-Key is required."""
    c = emulator_client
    sid = new_session_on(c, new_resources(c)["id"])["id"]
    ignored = submit_kind(c, sid, INFERENCE, {"name": "x"}, "k")
    assert ignored.status_code == 200, ignored.text
    assert submit_kind(c, sid, INFERENCE, [1], "k2").status_code == 400
    missing_key = c.post(f"{SESSIONS}/{sid}/operations/{INFERENCE}")
    assert missing_key.status_code == 400
    assert missing_key.json()["error"]["param"] == "Idempotency-Key"


def test_checkpoints_are_listed_filtered_paged_and_owned(emulator_client: httpx.Client) -> None:
    c = emulator_client
    a = new_session_on(c, new_resources(c, lora_enabled=True)["id"], lora_config={"rank": 8})
    b = new_session_on(c, new_resources(c)["id"])
    made = [
        save(c, a["id"], TRAINING, "a1"),
        save(c, a["id"], INFERENCE, "a2"),
        save(c, b["id"], TRAINING, "b1"),
    ]
    page = c.get(CHECKPOINTS, params={"limit": 2}).json()
    assert_schema(page, "CheckpointsListResponse")
    assert [ck["id"] for ck in page["data"]] == [made[2]["id"], made[1]["id"]]
    assert page["meta"] == {"has_more": True, "limit": 2, "next_cursor": made[1]["id"]}
    rest = c.get(CHECKPOINTS, params={"limit": 2, "after": page["meta"]["next_cursor"]}).json()
    assert [ck["id"] for ck in rest["data"]] == [made[0]["id"]]
    assert rest["meta"]["has_more"] is False and rest["meta"]["next_cursor"] == ""
    inference = c.get(CHECKPOINTS, params={"type": "CHECKPOINT_TYPE_INFERENCE"}).json()["data"]
    assert [ck["id"] for ck in inference] == [made[1]["id"]]
    assert inference[0]["lora_rank"] == 8 and inference[0]["session_id"] == a["id"]
    assert c.get(CHECKPOINTS, params={"base_model": "Qwen/Qwen3-8B"}).json()["data"] == []
    got = c.get(f"{CHECKPOINTS}/{made[0]['id']}").json()
    assert_schema(got, "Checkpoint")
    assert got["type"] == "CHECKPOINT_TYPE_TRAINING" and got["step"] == "0"
    other = {"Authorization": f"Bearer {OTHER_KEY}"}
    assert c.get(f"{CHECKPOINTS}/{made[0]['id']}", headers=other).status_code == 404
    assert c.get(CHECKPOINTS, headers=other).json()["data"] == []
    bad_cursor = c.get(CHECKPOINTS, params={"after": "ckpt-nope"})
    assert bad_cursor.status_code == 400 and bad_cursor.json()["error"]["param"] == "after"
    bad_type = c.get(CHECKPOINTS, params={"type": "TRAINING"})
    assert bad_type.status_code == 400 and bad_type.json()["error"]["param"] == "type"


def _download(c: httpx.Client, checkpoint_id: str, variant: str) -> httpx.Response:
    return c.get(f"{CHECKPOINTS}/{checkpoint_id}/download", params={"variant": variant})


def test_download_serves_safetensors_and_a_manifest_behind_presigned_urls(
    emulator_client: httpx.Client,
) -> None:
    c = emulator_client
    sid = new_session_on(c, new_resources(c, lora_enabled=True)["id"])["id"]
    untrained = save(c, sid, INFERENCE, "before")
    train_step(c, sid, 0, "a")
    trained = save(c, sid, INFERENCE, "after")

    def files(checkpoint_id: str, variant: str) -> dict[str, bytes]:
        r = _download(c, checkpoint_id, variant)
        assert r.status_code == 200, r.text
        assert_schema(r.json(), "CheckpointDownloadResponse")
        out = {}
        for f in r.json()["data"]:
            got = c.get(f["url"], headers={"Authorization": ""})  # the token is the credential
            assert got.status_code == 200, got.text
            assert len(got.content) == int(f["size"])
            out[f["filename"]] = got.content
        return out

    adapter = files(trained["id"], "CHECKPOINT_VARIANT_UNSPECIFIED")  # LoRA: the adapter
    assert sorted(adapter) == ["adapter_model.safetensors", "manifest.json"]
    manifest = json.loads(adapter["manifest.json"])
    weights = adapter["adapter_model.safetensors"]
    assert manifest["files"] == [{"filename": "adapter_model.safetensors", "size": len(weights),
                                  "sha256": hashlib.sha256(weights).hexdigest()}]  # fmt: skip
    assert manifest["variant"] == "CHECKPOINT_VARIANT_ADAPTER" and manifest["step"] == "1"
    delta = safetensors.numpy.load(weights)
    assert {k: v.dtype for k, v in delta.items()} == {k: np.float32 for k in ("E", "W", "b")}
    assert any(np.abs(v).max() > 0 for v in delta.values())
    zero = safetensors.numpy.load(
        files(untrained["id"], "CHECKPOINT_VARIANT_ADAPTER")["adapter_model.safetensors"]
    )
    assert all(not v.any() for v in zero.values())  # nothing trained: an all-zero adapter
    merged = files(trained["id"], "CHECKPOINT_VARIANT_MERGED")
    assert sorted(merged) == ["manifest.json", "model.safetensors"]
    assert files(trained["id"], "CHECKPOINT_VARIANT_MERGED") == merged  # deterministic bytes

    url = _download(c, trained["id"], "CHECKPOINT_VARIANT_MERGED").json()["data"][0]["url"]
    assert c.get(url.replace("token=", "token=x")).status_code == 404  # like a missing id


@pytest.mark.parametrize("variant", ["CHECKPOINT_VARIANT_UNSPECIFIED", "CHECKPOINT_VARIANT_MERGED"])
def test_another_key_cannot_download_a_checkpoint(
    emulator_client: httpx.Client, variant: str
) -> None:
    """The download route checks the owner like every other route: another API key gets the
    404 of a missing checkpoint, and no presigned URL (the token is the only credential of the
    files)."""
    c = emulator_client
    sid = new_session_on(c, new_resources(c)["id"])["id"]
    checkpoint = save(c, sid, INFERENCE, "mine")
    mine = _download(c, checkpoint["id"], variant)
    assert mine.status_code == 200, mine.text
    other = {"Authorization": f"Bearer {OTHER_KEY}"}
    refused = c.get(
        f"{CHECKPOINTS}/{checkpoint['id']}/download", params={"variant": variant}, headers=other
    )
    assert refused.status_code == 404, refused.text
    missing = c.get(f"{CHECKPOINTS}/ckpt-none/download", params={"variant": variant})
    assert refused.json()["error"]["message"] == (
        missing.json()["error"]["message"].replace("ckpt-none", checkpoint["id"])
    )
    assert "token=" not in refused.text and "/_emulator/" not in refused.text
    for f in mine.json()["data"]:
        assert f["url"].split("token=", 1)[1] not in refused.text


def test_download_variant_must_fit_the_checkpoint(emulator_client: httpx.Client) -> None:
    c = emulator_client
    sid = new_session_on(c, new_resources(c, lora_enabled=False)["id"])["id"]  # full-weight
    training = save(c, sid, TRAINING, "t")
    inference = save(c, sid, INFERENCE, "i")
    assert inference["registration"] == {
        "model": {"id": f"{TINY}-{inference['id']}", "revision_id": "1"}
    }
    r = _download(c, training["id"], "CHECKPOINT_VARIANT_MERGED")
    assert r.status_code == 400 and "training checkpoint" in r.json()["error"]["message"]
    r = _download(c, inference["id"], "CHECKPOINT_VARIANT_ADAPTER")
    assert r.status_code == 400 and r.json()["error"]["param"] == "variant"
    assert "no adapter" in r.json()["error"]["message"]
    r = _download(c, inference["id"], "CHECKPOINT_VARIANT_UNSPECIFIED")
    assert [f["filename"] for f in r.json()["data"]] == ["model.safetensors", "manifest.json"]
    missing = c.get(f"{CHECKPOINTS}/{inference['id']}/download")
    assert missing.status_code == 400 and missing.json()["error"]["param"] == "variant"


@pytest.mark.parametrize("top_k", [-1, 0])
def test_top_k_below_one_means_no_limit(emulator_client: httpx.Client, top_k: int) -> None:
    """Tinker's default `top_k: -1` (sent by the official SDK's Tinker layer) and 0 both mean no
    limit: the same tokens as a request without `top_k`."""
    from _operation_kind_bodies import run_kind, sample_body

    c = emulator_client
    sid = new_session_on(c, new_resources(c)["id"])["id"]
    with_k = run_kind(c, sid, "sample", sample_body([5, 6], max_tokens=8, seed=3, top_k=top_k,
                                                    top_p=1.0, temperature=1.0), "k")  # fmt: skip
    without = run_kind(c, sid, "sample", sample_body([5, 6], max_tokens=8, seed=3), "n")
    assert with_k["output"] == without["output"]


def test_a_save_whose_answer_was_lost_is_retried_into_the_same_checkpoint(
    transport_client: httpx.Client,
) -> None:
    """The fault injection covers the checkpoint kinds like every route: a save committed but
    never answered (`drop_after_commit`), then a 503, then retried with the same key, leaves
    exactly one checkpoint."""
    c = transport_client
    sid = new_session_on(c, new_resources(c)["id"])["id"]
    route = "POST /v1/rl/training-sessions/{session_id}/operations/training-checkpoint"
    for kind in ("drop_after_commit", "http_503"):
        armed = c.post("/_emulator/faults", json={"kind": kind, "route": route})
        assert armed.status_code == 200, armed.text
    with pytest.raises(httpx.RemoteProtocolError):
        submit_kind(c, sid, TRAINING, None, "lost")
    assert submit_kind(c, sid, TRAINING, None, "lost").status_code == 503
    save(c, sid, TRAINING, "lost")
    assert len(c.get(CHECKPOINTS, params={"session_id": sid}).json()["data"]) == 1
