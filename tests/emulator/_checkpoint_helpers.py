"""Helpers of the checkpoint and model-resources tests: a few training steps, checkpoints,
resumed sessions, and the stored state of a checkpoint."""

from __future__ import annotations

from typing import Any

import httpx
from _emulator_bodies import TINY, fb_body
from _operation_kind_bodies import run_kind, sample_body, submit_kind, wait_kind

RESOURCES = "/v1/rl/model-resources"
SESSIONS = "/v1/rl/training-sessions"
CHECKPOINTS = "/v1/rl/checkpoints"
TRAINING = "training-checkpoint"
INFERENCE = "inference-checkpoint"


def new_resources(client: httpx.Client, **fields: Any) -> dict[str, Any]:
    r = client.post(RESOURCES, json={"base_model": TINY, **fields})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def start_session(client: httpx.Client, resources_id: str, **fields: Any) -> httpx.Response:
    return client.post(SESSIONS, json={"model_resources_id": resources_id, **fields})


def new_session_on(client: httpx.Client, resources_id: str, **fields: Any) -> dict[str, Any]:
    r = start_session(client, resources_id, **fields)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def train_step(client: httpx.Client, sid: str, step: int, tag: str) -> dict[str, Any]:
    """One RL-shaped step: a GRPO forward-backward, an optimizer step, a weights-sync and a
    seeded sample. Returns what a trajectory is compared on (loss, step, sampled tokens)."""
    fb = run_kind(client, sid, "forward-backward", fb_body("LOSS_TYPE_GRPO", 2, 6, step),
                  f"{tag}-fb-{step}")  # fmt: skip
    opt = run_kind(client, sid, "optim-step", {"adam_params": {"learning_rate": 0.05}},
                   f"{tag}-opt-{step}")  # fmt: skip
    run_kind(client, sid, "weights-sync", {"weight_sync_type": "WEIGHT_SYNC_TYPE_SYNCHRONOUS"},
             f"{tag}-sync-{step}")  # fmt: skip
    body = sample_body([3, 1, 4], num_samples=2, max_tokens=6, seed=100 + step)
    sampled = run_kind(client, sid, "sample", body, f"{tag}-s-{step}")
    return {
        "loss": fb["output"]["loss"],
        "step": opt["output"]["step"],
        "tokens": [s["tokens"] for s in sampled["output"]["results"][0]["sequences"]],
    }


def save(client: httpx.Client, sid: str, kind: str, key: str) -> dict[str, Any]:
    """Save a checkpoint (no body, as the official SDK sends it); returns the checkpoint."""
    r = client.post(f"{SESSIONS}/{sid}/operations/{kind}", headers={"Idempotency-Key": key})
    assert r.status_code == 200, r.text
    op = wait_kind(client, sid, kind, r.json()["id"])
    assert op["status"] == "TRAINING_OPERATION_STATUS_COMPLETED", op
    checkpoint: dict[str, Any] = op["output"]["checkpoint"]
    return checkpoint


def stored_state(app: Any, checkpoint_id: str) -> bytes:
    """The safetensors bytes of a checkpoint's state, as the emulator stores them."""
    row = app.emulator.store.get_checkpoint(None, checkpoint_id)
    assert row is not None, checkpoint_id
    state: bytes = row.state
    return state


__all__ = [
    "CHECKPOINTS", "INFERENCE", "RESOURCES", "SESSIONS", "TRAINING", "new_resources",
    "new_session_on", "run_kind", "save", "start_session", "stored_state", "submit_kind",
    "train_step",
]  # fmt: skip
