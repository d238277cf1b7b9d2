"""Request bodies and small helpers for the emulator's HTTP tests (not a test module)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import jsonschema
import numpy as np
import yaml
from emulator_harness import EMULATOR_KEY, wait_until_terminal
from together_rl_emulator.base._spec import spec_bytes
from together_rl_spec import wire_document

TINY = "emulator/tiny-1k"
LOSS_TYPES = (
    "LOSS_TYPE_CROSS_ENTROPY",
    "LOSS_TYPE_GRPO",
    "LOSS_TYPE_IMPORTANCE_SAMPLING",
    "LOSS_TYPE_PPO",
    "LOSS_TYPE_CISPO",
    "LOSS_TYPE_DRO",
    "LOSS_TYPE_DPPO",
)
FB = "/v1/rl/training-sessions/{}/operations/forward-backward"

_SPEC = wire_document(yaml.safe_load(spec_bytes()))  # int64s in both JSON forms


def assert_schema(instance: Any, schema_name: str) -> None:
    """Validate a response body against `#/components/schemas/<schema_name>` of the spec."""
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": f"#/components/schemas/{schema_name}",
        "components": _SPEC["components"],
    }
    jsonschema.Draft202012Validator(schema).validate(instance)


def loss_config(loss_type: str) -> dict[str, Any]:
    loss: dict[str, Any] = {"type": loss_type}
    if loss_type == "LOSS_TYPE_DRO":
        loss["dro_params"] = {"beta": 0.05}
    if loss_type == "LOSS_TYPE_GRPO":
        loss["grpo_params"] = {"clip_low_threshold": 0.8, "clip_high_threshold": 1.2, "beta": 0.1}
    return loss


def sample(
    loss_type: str, length: int, rng: np.random.Generator, vocab: int = 1024
) -> dict[str, Any]:
    tokens = rng.integers(0, vocab, length).tolist()
    inputs: dict[str, Any] = {
        "target_tokens": {"data": rng.integers(0, vocab, length).tolist(), "dtype": "int64"}
    }
    mask = [0, *([1] * (length - 1))]
    if loss_type == "LOSS_TYPE_CROSS_ENTROPY":
        inputs["weights"] = {"data": [float(m) for m in mask], "dtype": "float32"}
    else:
        inputs["logprobs"] = {
            "data": (-7.0 + rng.normal(0, 0.2, length)).tolist(),
            "dtype": "float32",
        }
        inputs["advantages"] = {"data": rng.normal(0, 1, length).tolist(), "dtype": "float32"}
        inputs["mask"] = {"data": mask, "dtype": "int64"}
        if loss_type == "LOSS_TYPE_GRPO":
            inputs["reference_logprobs"] = {
                "data": (-7.0 + rng.normal(0, 0.2, length)).tolist(),
                "dtype": "float32",
            }
    return {
        "model_input": {"chunks": [{"encoded_text": {"tokens": tokens}}]},
        "loss_fn_inputs": inputs,
    }


def fb_body(
    loss_type: str = "LOSS_TYPE_CROSS_ENTROPY",
    n_samples: int = 1,
    length: int = 4,
    seed: int = 0,
    **flags: bool,
) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    return {
        "samples": [sample(loss_type, length, rng) for _ in range(n_samples)],
        "loss": loss_config(loss_type),
        **flags,
    }


def new_session(client: httpx.Client, base_model: str = TINY, **headers: str) -> str:
    r = client.post("/v1/rl/model-resources", json={"base_model": base_model}, headers=headers)
    assert r.status_code == 200, r.text
    r = client.post(
        "/v1/rl/training-sessions", json={"model_resources_id": r.json()["id"]}, headers=headers
    )
    assert r.status_code == 200, r.text
    session_id: str = r.json()["id"]
    return session_id


def submit(
    client: httpx.Client, session_id: str, body: dict[str, Any], key: str, **headers: str
) -> httpx.Response:
    return client.post(
        FB.format(session_id), json=body, headers={"Idempotency-Key": key, **headers}
    )


def get_json(client: httpx.Client, path: str) -> dict[str, Any]:
    r = client.get(path)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def wait_operation(
    client: httpx.Client, session_id: str, operation_id: str, guard_s: float = 120.0
) -> dict[str, Any]:
    """Poll until terminal (the guard only stops a hung test; it is not a timing assertion)."""
    path = f"{FB.format(session_id)}/{operation_id}"
    return wait_until_terminal(lambda: get_json(client, path), timeout_s=guard_s, what=path)


def wait_sdk_operation(retrieve: Callable[..., Any], session_id: str, operation_id: str) -> Any:
    """Poll with an SDK `retrieve_*` method until terminal; returns the SDK's operation."""
    return wait_until_terminal(
        lambda: retrieve(operation_id, session_id=session_id),
        status=lambda op: op.status,
        timeout_s=120.0,
        what=f"operation {operation_id}",
    )


def run_op(client: httpx.Client, session_id: str, body: dict[str, Any], key: str) -> dict[str, Any]:
    r = submit(client, session_id, body, key)
    assert r.status_code == 200, r.text
    return wait_operation(client, session_id, r.json()["id"])


def process_client(process: Any, key: str = EMULATOR_KEY) -> httpx.Client:
    """An authenticated client of an emulator subprocess (an `EmulatorProcess` of
    `together_rl_contract_tests`)."""
    return httpx.Client(
        base_url=process.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=30
    )


def stats(client: httpx.Client, **headers: str) -> dict[str, Any]:
    r = client.get("/_emulator/stats", headers=headers)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body
