"""Checkpoints: both operation kinds (no body, Idempotency-Key), their listing, paging and
ownership, downloads behind presigned URLs, and resume (with and without the optimizer)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest

from together_rl_contract_tests._http import (
    COMPLETED,
    INFERENCE_CHECKPOINT,
    TRAINING_CHECKPOINT,
    TargetClient,
    operation_path,
)

TRAINING_POST = "POST /rl/training-sessions/{session_id}/operations/training-checkpoint"
INFERENCE_POST = "POST /rl/training-sessions/{session_id}/operations/inference-checkpoint"
LIST = "GET /rl/checkpoints"
GET = "GET /rl/checkpoints/{checkpoint_id}"
DOWNLOAD = "GET /rl/checkpoints/{checkpoint_id}/download"
START = "POST /rl/training-sessions"
CHECKPOINTS = "/v1/rl/checkpoints"


def _query(path: str, params: dict[str, Any]) -> str:
    return f"{path}?{urlencode(params)}"


def _save(client: TargetClient, session_id: str, kind: str, key: str) -> dict[str, Any]:
    """Save a checkpoint as the official SDK does (no body); returns the checkpoint."""
    response = client.post(operation_path(session_id, kind), headers={"Idempotency-Key": key})
    assert response.status_code == 200, response.text
    operation = client.wait_for_operation(session_id, response.json()["id"], kind=kind)
    assert operation["status"] == COMPLETED, operation
    checkpoint: dict[str, Any] = operation["output"]["checkpoint"]
    assert isinstance(checkpoint.get("id"), str) and checkpoint["id"], operation
    return checkpoint


@pytest.mark.operation(TRAINING_POST)
def test_training_checkpoint_is_listed_got_and_on_the_session(
    client: TargetClient, fresh_session: dict[str, Any]
) -> None:
    sid = fresh_session["id"]
    checkpoint = _save(client, sid, TRAINING_CHECKPOINT, "ckpt-1")
    got = client.get(f"{CHECKPOINTS}/{checkpoint['id']}").json()
    assert got["type"] == "CHECKPOINT_TYPE_TRAINING" and got["session_id"] == sid, got
    assert str(got["step"]) == str(checkpoint["step"])
    session = client.get(f"/v1/rl/training-sessions/{sid}").json()
    assert checkpoint["id"] in [c["id"] for c in session["training_checkpoints"]]


@pytest.mark.operation(TRAINING_POST)
def test_a_retried_save_makes_one_checkpoint(
    client: TargetClient, fresh_session: dict[str, Any]
) -> None:
    sid = fresh_session["id"]
    path = operation_path(sid, TRAINING_CHECKPOINT)
    first = client.post(path, headers={"Idempotency-Key": "same"}).json()
    again = client.post(path, headers={"Idempotency-Key": "same"}).json()
    assert first["id"] == again["id"]
    client.wait_for_operation(sid, first["id"], kind=TRAINING_CHECKPOINT)
    listed = client.get(_query(CHECKPOINTS, {"session_id": sid})).json()["data"]
    assert len(listed) == 1, listed


@pytest.mark.operation(LIST)
def test_checkpoints_page_newest_first(client: TargetClient, fresh_session: dict[str, Any]) -> None:
    sid = fresh_session["id"]
    made = [_save(client, sid, TRAINING_CHECKPOINT, f"page-{i}")["id"] for i in range(3)]
    page = client.get(_query(CHECKPOINTS, {"session_id": sid, "limit": 2})).json()
    assert [c["id"] for c in page["data"]] == made[:0:-1]
    assert page["meta"]["has_more"] is True
    rest = client.get(
        _query(CHECKPOINTS, {"session_id": sid, "limit": 2, "after": page["meta"]["next_cursor"]})
    ).json()
    assert [c["id"] for c in rest["data"]] == made[:1]
    assert rest["meta"]["has_more"] is False and not rest["meta"].get("next_cursor")
    typed = client.get(
        _query(CHECKPOINTS, {"session_id": sid, "type": "CHECKPOINT_TYPE_INFERENCE"})
    )
    assert typed.json()["data"] == []


@pytest.mark.operation(DOWNLOAD)
def test_inference_checkpoint_downloads_behind_presigned_urls(
    client: TargetClient, fresh_session: dict[str, Any]
) -> None:
    sid = fresh_session["id"]
    exported, training = (
        _save(client, sid, kind, f"download-{kind}")
        for kind in (INFERENCE_CHECKPOINT, TRAINING_CHECKPOINT)
    )
    files = client.get(
        _query(f"{CHECKPOINTS}/{exported['id']}/download", {"variant": "CHECKPOINT_VARIANT_MERGED"})
    )
    assert files.status_code == 200, files.text
    assert files.json()["data"], files.json()
    for item in files.json()["data"]:
        fetched = client.request("GET", item["url"], auth=False)
        assert fetched.status_code == 200, (item, fetched.text[:200])
        assert len(fetched.content) == int(item["size"]), item
    refused = client.get(
        _query(f"{CHECKPOINTS}/{training['id']}/download", {"variant": "CHECKPOINT_VARIANT_MERGED"})
    )
    assert refused.status_code == 400, refused.text


@pytest.mark.operation(START)
def test_resume_with_and_without_the_optimizer(
    client: TargetClient, fresh_session: dict[str, Any]
) -> None:
    """On resources of its own (LoRA: room for both resumed sessions), stopped afterwards."""
    sid = fresh_session["id"]
    client.run_operation(sid, "optim-step", {"adam_params": {"learning_rate": 1e-4}})
    checkpoint = _save(client, sid, TRAINING_CHECKPOINT, "resume")
    exported = _save(client, sid, INFERENCE_CHECKPOINT, "resume-inference")
    resources = client.create_model_resources(fresh_session["base_model"])["id"]
    try:
        for load_optimizer, step in ((None, str(checkpoint["step"])), (False, "0")):
            body: dict[str, Any] = {
                "model_resources_id": resources,
                "resume_from_checkpoint_id": checkpoint["id"],
            }
            if load_optimizer is not None:
                body["load_optimizer"] = load_optimizer
            resumed = client.post("/v1/rl/training-sessions", json=body)
            assert resumed.status_code == 200, resumed.text
            assert str(resumed.json()["step"]) == step, (body, resumed.json())
        refused = client.post(
            "/v1/rl/training-sessions",
            json={"model_resources_id": resources,
                  "resume_from_checkpoint_id": exported["id"], "load_optimizer": True},
        )  # fmt: skip
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"]["param"] == "load_optimizer"
    finally:
        client.post(_query(f"/v1/rl/model-resources/{resources}/stop", {"force": "true"}))


@pytest.mark.operation(GET)
def test_unknown_and_foreign_checkpoints_are_404(
    client: TargetClient, second_client: TargetClient, fresh_session: dict[str, Any]
) -> None:
    checkpoint = _save(client, fresh_session["id"], TRAINING_CHECKPOINT, "mine")
    assert client.get(f"{CHECKPOINTS}/ckpt-no-such-checkpoint").status_code == 404
    assert second_client.get(f"{CHECKPOINTS}/{checkpoint['id']}").status_code == 404
    theirs = second_client.get(_query(CHECKPOINTS, {"session_id": fresh_session["id"]}))
    assert theirs.status_code == 200 and theirs.json()["data"] == []
