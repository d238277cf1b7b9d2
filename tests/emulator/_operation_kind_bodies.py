"""Bodies and helpers for the other operation kinds (optim-step, sample, weights-sync, custom
forward-backward, payloads) in the emulator's HTTP tests (not a test module)."""

from __future__ import annotations

from typing import Any

import httpx
from _emulator_bodies import get_json
from emulator_harness import COMPLETED, wait_until_terminal

OPS = "/v1/rl/training-sessions/{}/operations/{}"


def model_input(tokens: list[int]) -> dict[str, Any]:
    return {"chunks": [{"encoded_text": {"tokens": tokens}}]}


def ce_body(tokens: list[int], targets: list[int], weights: list[float], **flags: Any) -> dict:
    return {
        "samples": [
            {
                "model_input": model_input(tokens),
                "loss_fn_inputs": {
                    "target_tokens": {"data": targets, "dtype": "int64"},
                    "weights": {"data": weights, "dtype": "float32"},
                },
            }
        ],
        "loss": {"type": "LOSS_TYPE_CROSS_ENTROPY"},
        **flags,
    }


def custom_body(tokens: list[int], targets: list[int], gradient: list[float]) -> dict[str, Any]:
    return {
        "samples": [
            {
                "model_input": model_input(tokens),
                "loss_fn_inputs": {"target_tokens": {"data": targets, "dtype": "int64"}},
            }
        ],
        "gradients": [{"data": gradient, "dtype": "D_TYPE_FLOAT32"}],
    }


def sample_body(prompt: list[int], **params: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model_inputs": [model_input(prompt)]}
    for flag in ("num_samples", "prompt_logprobs", "topk_prompt_logprobs"):
        if flag in params:
            body[flag] = params.pop(flag)
    body["sampling_params"] = params
    return body


def submit_kind(
    client: httpx.Client, sid: str, kind: str, body: Any, key: str, **headers: str
) -> httpx.Response:
    return client.post(
        OPS.format(sid, kind), json=body, headers={"Idempotency-Key": key, **headers}
    )


def wait_kind(client: httpx.Client, sid: str, kind: str, op_id: str) -> dict[str, Any]:
    """Poll until terminal (the guard only stops a hung test; it is not a timing assertion)."""
    path = f"{OPS.format(sid, kind)}/{op_id}"
    return wait_until_terminal(lambda: get_json(client, path), timeout_s=120.0, what=path)


def run_kind(client: httpx.Client, sid: str, kind: str, body: Any, key: str) -> dict[str, Any]:
    r = submit_kind(client, sid, kind, body, key)
    assert r.status_code == 200, r.text
    op = wait_kind(client, sid, kind, r.json()["id"])
    assert op["status"] == COMPLETED, op
    return op


def forward_logprobs(client: httpx.Client, sid: str, tokens: list[int], key: str) -> list[float]:
    """Per-position log-probs of tokens[1:] given tokens[:-1] from a forward-only CE pass."""
    n = len(tokens) - 1
    body = ce_body(tokens[:-1], tokens[1:], [1.0] * n, forward_only=True,
                   return_loss_fn_outputs=True)  # fmt: skip
    op = run_kind(client, sid, "forward-backward", body, key)
    data: list[float] = op["output"]["loss_fn_outputs"][0]["tensors"]["logprobs"]["data"]
    return data
