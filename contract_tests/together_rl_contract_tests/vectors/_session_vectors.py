"""The vectors of a training session's life: training steps, payload uploads and downloads, and
checkpoints with their manifests."""

from __future__ import annotations

import json
from typing import Any

from together_rl_contract_tests import _training as t
from together_rl_contract_tests._http import (
    CUSTOM_FORWARD_BACKWARD,
    FORWARD_BACKWARD,
    INFERENCE_CHECKPOINT,
    OPTIM_STEP,
    SAMPLE,
    TRAINING_CHECKPOINT,
    WEIGHTS_SYNC,
    operation_path,
)
from together_rl_contract_tests._target import EMULATOR_BASE_MODEL
from together_rl_contract_tests.vectors._recorder import Recorder, normalise

__all__ = ["WEIGHTS_DIGEST", "checkpoint_vectors", "payload_vectors", "training_vectors"]


def training_vectors(rec: Recorder, session_id: str) -> list[dict[str, Any]]:
    """A seeded loop on a fresh session: what each operation kind returns, in order."""
    x = t.SEQUENCE_X
    sample = t.sample_body([t.PROMPT, (7, 200, 31, 64)], seed=2024, max_tokens=8, num_samples=2)
    score = t.ce_body([x], forward_only=True)
    sync = {"weight_sync_type": "WEIGHT_SYNC_TYPE_SYNCHRONOUS"}
    named = [
        ("sample_seeded", SAMPLE, sample),
        ("forward_only_logprobs_before", FORWARD_BACKWARD, score),
        ("forward_backward_cross_entropy", FORWARD_BACKWARD, t.ce_body([x])),
        ("custom_forward_backward", CUSTOM_FORWARD_BACKWARD, t.custom_body(x, [-0.5] * 7)),
        ("optim_step_adam", OPTIM_STEP, {"adam_params": {"learning_rate": 0.01}}),
        ("forward_only_logprobs_after_step", FORWARD_BACKWARD, score),
        ("sample_seeded_before_sync_unchanged", SAMPLE, sample),
        ("weights_sync", WEIGHTS_SYNC, sync),
        ("sample_seeded_after_sync", SAMPLE, sample),
        ("optim_step_muon_on_adamw_resources_refused", OPTIM_STEP, {"muon_params": {}}),
    ]
    return [
        {"name": name, "steps": rec.operation(session_id, kind, body, f"vec-train-{name}")}
        for name, kind, body in named
    ]


def payload_vectors(rec: Recorder, session_id: str) -> list[dict[str, Any]]:
    upload = f"/v1/rl/training-sessions/{session_id}/payloads/upload-url"
    body = t.ce_body([t.SEQUENCE_X, t.SEQUENCE_Y], forward_only=True)
    created = rec.step("POST", upload)
    real_url = _real_url(rec, created)
    put = rec.step("PUT", real_url, raw=json.dumps(body).encode(), auth=False)
    stand_in = {
        "samples": [
            {"model_input": s["model_input"],
             "loss_fn_inputs": {k: dict(v, data=v["data"][:2]) for k, v in s["loss_fn_inputs"].items()}}  # noqa: E501
            for s in body["samples"]
        ],
        "loss": body["loss"], "forward_only": True, "return_loss_fn_outputs": True,
        "payload_id": rec.real(created["response"]["body"]["payload_id"]),
    }  # fmt: skip
    run = rec.operation(session_id, FORWARD_BACKWARD, stand_in, "vec-payload-upload")
    large = t.sample_body([t.PROMPT], seed=5, max_tokens=1024, num_samples=64)
    offloaded = rec.operation(session_id, SAMPLE, large, "vec-payload-offloaded")
    payload_id = offloaded[-1]["response"]["body"]["output"]["payload_id"]
    download = rec.step(
        "POST",
        f"/v1/rl/training-sessions/{session_id}/payloads/{rec.real(payload_id)}/download-url",
    )
    fetched = rec.step("GET", _real_url(rec, download), auth=False, summarise=True)
    return [
        {"name": "upload_then_operation_with_payload_id", "steps": [created, put, *run]},
        {"name": "offloaded_sample_result_download", "steps": [*offloaded, download, fetched]},
    ]


def checkpoint_vectors(rec: Recorder, session_id: str, resources_id: str) -> list[dict[str, Any]]:
    """Checkpoints of the trained session (no body, as the official SDK sends them), their
    listing, a download of the inference one (the manifest; the safetensors bytes are binary),
    a resume, and the model-resource endpoints (estimate, extend, list, a refused stop)."""
    checkpoints = "/v1/rl/checkpoints"
    saves, saved_ids = [], []
    for kind, key in ((TRAINING_CHECKPOINT, "vec-training-ckpt"),
                      (INFERENCE_CHECKPOINT, "vec-inference-ckpt")):  # fmt: skip
        submit = normalise(
            rec.step("POST", operation_path(session_id, kind), headers={"Idempotency-Key": key}),
            racy_status=True,
        )
        done = rec.wait(session_id, rec.real(submit["response"]["body"]["id"]), kind)
        assert rec.last_response is not None
        saved_ids.append(str(rec.last_response.json()["output"]["checkpoint"]["id"]))
        saves.append([submit, done])
    training_id, inference_id = saved_ids
    listed = rec.step("GET", f"{checkpoints}?session_id={session_id}")
    got = rec.step("GET", f"{checkpoints}/{training_id}")
    download = rec.step(
        "GET", f"{checkpoints}/{inference_id}/download?variant=CHECKPOINT_VARIANT_MERGED"
    )
    urls = [item["url"] for item in rec.last_response.json()["data"]]  # type: ignore[union-attr]
    manifest = _without_weight_digests(
        rec.step("GET", next(u for u in urls if "manifest.json" in u), auth=False)
    )
    refused = rec.step(
        "GET", f"{checkpoints}/{training_id}/download?variant=CHECKPOINT_VARIANT_MERGED"
    )
    resumed = rec.step(
        "POST", "/v1/rl/training-sessions",
        body={"model_resources_id": resources_id, "resume_from_checkpoint_id": training_id},
    )  # fmt: skip
    resources = "/v1/rl/model-resources"
    estimate = rec.step(
        "POST", f"{resources}/estimate-cost",
        body={"base_model": EMULATOR_BASE_MODEL, "lora_enabled": True},
    )  # fmt: skip
    extend = rec.step("POST", f"{resources}/{resources_id}/extend-expiry", body={"seconds": 7200})
    listing = rec.step("GET", f"{resources}?status=MODEL_RESOURCES_STATUS_READY")
    stop_refused = rec.step("POST", f"{resources}/{resources_id}/stop")
    return [
        {"name": "training_checkpoint_no_body", "steps": saves[0]},
        {"name": "inference_checkpoint_no_body", "steps": saves[1]},
        {"name": "list_and_get_checkpoints", "steps": [listed, got]},
        {"name": "download_inference_checkpoint_manifest", "steps": [download, manifest]},
        {"name": "download_training_checkpoint_refused", "steps": [refused]},
        {"name": "resume_from_training_checkpoint", "steps": [resumed]},
        {"name": "estimate_extend_list_model_resources", "steps": [estimate, extend, listing]},
        {"name": "stop_with_running_sessions_refused", "steps": [stop_refused]},
    ]


#: Stands in for the sha256 of a weights file in a checkpoint manifest.
WEIGHTS_DIGEST = "<sha256>"


def _without_weight_digests(step: dict[str, Any]) -> dict[str, Any]:
    """``step`` (a manifest GET) with each file's ``sha256`` replaced by ``<sha256>``.

    The file holds float32 weights trained in float64: a BLAS kernel that moves the last bit of
    a weight across a float32 rounding boundary changes the digest, so it is no exact datum. The
    file's ``size`` (set by the tensor shapes alone) is kept; a port checks the digest it gets
    against the file it downloads.
    """
    for entry in step["response"]["body"].get("files", []):
        entry["sha256"] = WEIGHTS_DIGEST
    return step


def _real_url(rec: Recorder, step: dict[str, Any]) -> str:
    """The presigned URL of ``step`` (the last one sent), unscrubbed."""
    assert rec.last_response is not None
    document = rec.last_response.json()
    return str(document.get("upload_url") or document["download_url"])
