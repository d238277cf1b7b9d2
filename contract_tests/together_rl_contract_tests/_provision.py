"""Resources the suite needs before fuzzing: a model resource, sessions, one operation of every
kind and one uploaded payload.

Against the emulator (or with ``--allow-mutations``) they are created. Against any other target
nothing is created: the session named with ``--session-id`` is used, and its one forward-only
operation is the only thing submitted (the operations of the other kinds and the payload are then
missing, and the fuzzer skips the operations that would need them).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping
from typing import Any

from together_rl_contract_tests import _http as http
from together_rl_contract_tests._http import TargetClient
from together_rl_contract_tests._spec import wire_path
from together_rl_contract_tests._target import EMULATOR_BASE_MODEL, Target

__all__ = [
    "KIND_PROBE_BODIES",
    "PROBE_BODY",
    "Provisioned",
    "base_model",
    "provision",
]

#: A forward-only cross-entropy pass valid for any vocabulary of at least 8 tokens.
PROBE_BODY = {
    "samples": [
        {
            "model_input": {"chunks": [{"encoded_text": {"tokens": [1, 2, 3]}}]},
            "loss_fn_inputs": {
                "target_tokens": {"data": [2, 3, 4], "dtype": "int64"},
                "weights": {"data": [0.0, 1.0, 1.0], "dtype": "float32"},
            },
        }
    ],
    "loss": {"type": "LOSS_TYPE_CROSS_ENTROPY"},
    "forward_only": True,
}


#: One small valid body per operation kind other than forward-backward (any vocabulary >= 8).
KIND_PROBE_BODIES: dict[str, dict[str, Any]] = {
    http.TRAINING_CHECKPOINT: {},  # the checkpoint kinds take no body; `{}` is accepted too
    http.INFERENCE_CHECKPOINT: {},
    http.CUSTOM_FORWARD_BACKWARD: {
        "samples": [
            {
                "model_input": {"chunks": [{"encoded_text": {"tokens": [1, 2, 3]}}]},
                "loss_fn_inputs": {"target_tokens": {"data": [2, 3, 4], "dtype": "int64"}},
            }
        ],
        "gradients": [{"data": [0.0, -1.0, -1.0], "dtype": "D_TYPE_FLOAT32"}],
    },
    http.OPTIM_STEP: {"adam_params": {"learning_rate": 1e-4}},
    http.WEIGHTS_SYNC: {"weight_sync_type": "WEIGHT_SYNC_TYPE_SYNCHRONOUS"},
    http.SAMPLE: {
        "model_inputs": [{"chunks": [{"encoded_text": {"tokens": [1, 2, 3]}}]}],
        "num_samples": 1,
        "sampling_params": {"max_tokens": 4, "seed": 0},
    },
}


@dataclasses.dataclass(frozen=True)
class Provisioned:
    """IDs the fuzzer pins so that cases reach the core logic instead of 404."""

    model_resources_id: str | None
    session_id: str | None
    #: A session the fuzzer may stop (never the one forward-backward is fuzzed against).
    spare_session_id: str | None
    operation_id: str | None
    base_model: str | None
    #: One operation id per kind ("optim-step", ...), forward-backward included.
    operation_ids: Mapping[str, str] = dataclasses.field(default_factory=dict)
    #: An uploaded payload of ``session_id`` (download-url accepts it).
    payload_id: str | None = None
    #: An inference checkpoint of ``session_id`` (downloadable).
    checkpoint_id: str | None = None
    #: Model resources the fuzzer may stop (never the ones ``session_id`` runs on).
    spare_model_resources_id: str | None = None
    #: A training checkpoint of ``session_id`` (a new session may resume from it).
    training_checkpoint_id: str | None = None


def provision(target: Target) -> Provisioned:
    with TargetClient(target) as client:
        if target.may_mutate and target.session_id is None:
            resources = client.create_model_resources(base_model(client))
            session = client.start_session(resources["id"])
            spare = client.start_session(resources["id"])
            probe = _probe_operation(client, session["id"])
            kinds = _kind_operations(client, session["id"])
            return Provisioned(
                resources["id"],
                session["id"],
                spare["id"],
                probe,
                resources["base_model"],
                {http.FORWARD_BACKWARD: probe, **kinds},
                client.upload_payload(session["id"], PROBE_BODY),
                _checkpoint_of(client, session["id"], kinds[http.INFERENCE_CHECKPOINT]),
                client.create_model_resources(resources["base_model"])["id"],
                _checkpoint_of(
                    client, session["id"], kinds[http.TRAINING_CHECKPOINT], http.TRAINING_CHECKPOINT
                ),
            )
        if target.session_id is None:
            return Provisioned(None, None, None, None, None)
        response = client.get(wire_path("getTrainingSession", session_id=target.session_id))
        session = response.json() if response.status_code == 200 else {}
        probe = _probe_operation(client, target.session_id)
        mutations = target.may_mutate
        return Provisioned(
            session.get("model_resources_id"),
            target.session_id,
            None,
            probe,
            session.get("base_model"),
            {
                http.FORWARD_BACKWARD: probe,
                **(_kind_operations(client, target.session_id) if mutations else {}),
            },
            client.upload_payload(target.session_id, PROBE_BODY) if mutations else None,
        )


def _probe_operation(client: TargetClient, session_id: str) -> str:
    """Submit one forward-only pass and return its id; waiting is best effort (the checks that
    follow report a broken operation far better than a provisioning error would)."""
    response = client.submit_forward_backward(session_id, PROBE_BODY)
    if response.status_code != 200:
        raise AssertionError(
            f"cannot submit the probe operation: {response.status_code} {response.text[:300]}"
        )
    operation_id = str(response.json()["id"])
    try:
        client.wait_for_operation(session_id, operation_id, timeout_s=30)
    except AssertionError as error:
        print(f"[contract] warning: probe operation: {error}", file=sys.stderr, flush=True)
    return operation_id


def _kind_operations(client: TargetClient, session_id: str) -> dict[str, str]:
    """Submit one operation of every other kind, in an order that leaves the session usable."""
    ids = {}
    for kind in (
        http.CUSTOM_FORWARD_BACKWARD, http.OPTIM_STEP, http.WEIGHTS_SYNC, http.SAMPLE,
        http.TRAINING_CHECKPOINT, http.INFERENCE_CHECKPOINT,
    ):  # fmt: skip
        response = client.submit_operation(session_id, kind, KIND_PROBE_BODIES[kind])
        if response.status_code != 200:
            raise AssertionError(
                f"cannot submit the probe {kind} operation: "
                f"{response.status_code} {response.text[:300]}"
            )
        ids[kind] = str(response.json()["id"])
    try:
        client.wait_for_operation(session_id, ids[http.SAMPLE], timeout_s=30, kind=http.SAMPLE)
    except AssertionError as error:
        print(f"[contract] warning: probe operations: {error}", file=sys.stderr, flush=True)
    return ids


def _checkpoint_of(
    client: TargetClient, session_id: str, operation_id: str, kind: str = http.INFERENCE_CHECKPOINT
) -> str | None:
    """The checkpoint a checkpoint operation of ``kind`` saved (None if it did not complete)."""
    try:
        operation = client.wait_for_operation(session_id, operation_id, timeout_s=30, kind=kind)
    except AssertionError as error:
        print(f"[contract] warning: probe checkpoint: {error}", file=sys.stderr, flush=True)
        return None
    checkpoint = (operation.get("output") or {}).get("checkpoint") or {}
    return checkpoint.get("id")


def base_model(client: TargetClient) -> str:
    """The base model for resources the suite creates: the emulator's tiny one, or the first
    supported model of any other target."""
    if client.target.is_emulator:
        return EMULATOR_BASE_MODEL
    models = client.get(wire_path("getSupportedModels")).json().get("data", [])
    if not models:
        raise RuntimeError("the target lists no supported models")
    return str(models[0]["base_model"])
