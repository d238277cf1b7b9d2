"""Generate the vectors by driving an in-process emulator (seed 0) over loopback."""

from __future__ import annotations

from typing import Any

from together_rl_contract_tests._emulator_process import emulator_in_thread
from together_rl_contract_tests._http import (
    TargetClient,
)
from together_rl_contract_tests._target import EMULATOR_BASE_MODEL, Target
from together_rl_contract_tests.vectors._recorder import Recorder
from together_rl_contract_tests.vectors._request_vectors import (
    error_vectors,
    idempotency_vectors,
    kind_idempotency_vectors,
    loss_vectors,
)
from together_rl_contract_tests.vectors._session_vectors import (
    checkpoint_vectors,
    payload_vectors,
    training_vectors,
)

__all__ = ["API_KEY", "SEED", "generate_all"]

API_KEY = "vectors-key"
SEED = 0


def generate_all() -> dict[str, list[dict[str, Any]]]:
    """All vector files by name, generated from a fresh in-process emulator."""
    from together_rl_emulator import create_app

    app = create_app(api_keys=[API_KEY], seed=SEED)
    with emulator_in_thread(app) as base_url:
        target = Target(base_url=base_url, api_key=API_KEY, is_emulator=True)
        with TargetClient(target, retries=0) as client:
            rec = Recorder(client)
            # LoRA resources: they run up to 5 sessions at once (full-weight ones 1).
            resources_body = {"base_model": EMULATOR_BASE_MODEL, "lora_enabled": True}
            setup = [rec.step("POST", "/v1/rl/model-resources", body=resources_body)]
            resources_id = rec.real("<model_resources_id:1>")
            setup.append(
                rec.step(
                    "POST", "/v1/rl/training-sessions", body={"model_resources_id": resources_id}
                )
            )
            session_id = rec.real("<session_id:1>")
            vectors = {
                "setup.json": [{"name": "create_model_resources_and_session", "steps": setup}],
                "losses.json": loss_vectors(rec, session_id),
                "errors.json": error_vectors(rec, session_id, resources_id),
                "idempotency.json": idempotency_vectors(rec, session_id)
                + kind_idempotency_vectors(rec, session_id),
            }
            second = rec.step(
                "POST", "/v1/rl/training-sessions", body={"model_resources_id": resources_id}
            )
            training_session = rec.real("<session_id:2>")
            vectors["training.json"] = [
                {"name": "start_second_session", "steps": [second]},
                *training_vectors(rec, training_session),
            ]
            vectors["payloads.json"] = payload_vectors(rec, training_session)
            vectors["checkpoints.json"] = checkpoint_vectors(rec, training_session, resources_id)
            return vectors
