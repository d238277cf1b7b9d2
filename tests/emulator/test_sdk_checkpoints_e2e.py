"""The official SDK `together==3.1.1` against the emulator over loopback, for the whole RL API
beyond the operations: its hand-written ModelResourcesClient / SessionClient / Trainer with
checkpoints, resume and `download_checkpoint`, its context-manager teardown (model resources
stopped on exit), and the raw methods of sessions.update, checkpoints and model resources."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import safetensors.numpy
from _emulator_bodies import TINY, fb_body
from emulator_harness import LiveEmulator

together = pytest.importorskip("together")
from together import ConflictError, Together  # noqa: E402
from together.post_training import ModelResourcesClient  # noqa: E402
from together.post_training.checkpoints import download_checkpoint  # noqa: E402

STOPPED = "MODEL_RESOURCES_STATUS_STOPPED"


@pytest.fixture
def sdk(live_emulator: LiveEmulator) -> Iterator[Together]:
    client = Together(api_key=live_emulator.api_key, base_url=live_emulator.base_url, max_retries=2)
    yield client
    client.close()


def _resources(live_emulator: LiveEmulator, **fields: object) -> ModelResourcesClient:
    return ModelResourcesClient.create(
        api_key=live_emulator.api_key, base_url=live_emulator.base_url, base_model=TINY,
        interval=0.01, **fields,
    )  # fmt: skip


def _step(trainer: object, seed: int) -> float:
    body = fb_body("LOSS_TYPE_CROSS_ENTROPY", 2, 6, seed)
    result = trainer.forward_backward(  # type: ignore[attr-defined]
        samples=body["samples"], loss=body["loss"], interval=0.01
    )
    trainer.optim_step(adam_params={"learning_rate": 0.05}, interval=0.01)  # type: ignore[attr-defined]
    return float(result.loss)


def test_trainer_checkpoint_resume_and_download(
    live_emulator: LiveEmulator, sdk: Together, tmp_path: Path
) -> None:
    with _resources(live_emulator, lora_enabled=True) as resources:
        session = resources.create_session(display_name="ckpt", interval=0.01)
        with session:
            _step(session.trainer, 0)
            saved = session.create_training_checkpoint(interval=0.01)
            exported = session.create_inference_checkpoint(interval=0.01)
            uninterrupted = [_step(session.trainer, s) for s in (1, 2)]
        assert str(saved.step) == "1"
        assert exported.registration is not None and exported.registration.adapter is not None

        resumed = resources.create_session(resume_from_checkpoint_id=saved.id, interval=0.01)
        with resumed:
            assert [_step(resumed.trainer, s) for s in (1, 2)] == uninterrupted

        files = download_checkpoint(
            sdk, exported.id, variant="CHECKPOINT_VARIANT_ADAPTER", output_dir=tmp_path
        )
        assert sorted(p.name for p in files) == ["adapter_model.safetensors", "manifest.json"]
        manifest = json.loads((tmp_path / "manifest.json").read_text())
        tensors = safetensors.numpy.load_file(str(tmp_path / "adapter_model.safetensors"))
        assert set(tensors) == set(manifest["tensors"])
        assert all(np.isfinite(t).all() for t in tensors.values())

        listed = sdk.post_training.checkpoints.list(session_id=session.session_id)
        assert {c.id for c in listed.data} == {saved.id, exported.id}
        assert sdk.post_training.checkpoints.retrieve(saved.id).type == "CHECKPOINT_TYPE_TRAINING"
    # Leaving the `with` stopped the model resources (the SDK's own teardown).
    assert sdk.post_training.model_resources.retrieve(resources.model_resources_id).status == (
        STOPPED
    )


def test_raw_methods_of_sessions_update_and_model_resources(sdk: Together) -> None:
    pt = sdk.post_training
    estimate = pt.model_resources.estimate_cost(
        base_model=TINY, lora_enabled=True, compute_config={"num_generator_replicas": 1}
    )
    assert (estimate.currency, estimate.price_per_hour) == ("USD", 8.0)
    mr = pt.model_resources.create(base_model=TINY, inactive_timeout=600)
    extended = pt.model_resources.extend_expiry(mr.id, seconds=7200)
    assert extended.expires_at is not None and mr.expires_at is not None
    assert extended.expires_at > mr.expires_at
    session = pt.sessions.create(model_resources_id=mr.id, display_name="raw")
    updated = pt.sessions.update(session.id, display_name="", metadata={"wandb": {"project": "p"}})
    assert updated.display_name is None and updated.metadata.wandb is not None
    body = fb_body()
    pt.operations.forward_backward(
        session.id, idempotency_key=str(uuid.uuid4()), loss=body["loss"], samples=body["samples"]
    )
    ops = pt.operations
    op = ops.create_training_checkpoint(session.id, idempotency_key="one-save")
    again = ops.create_training_checkpoint(session.id, idempotency_key="one-save")
    assert again.id == op.id
    with pytest.raises(ConflictError, match=session.id):  # the SDK retried the 409 not at all
        pt.model_resources.stop(mr.id)
    stopped = pt.model_resources.stop(mr.id, force=True)
    assert stopped.status == STOPPED
    assert pt.sessions.retrieve(session.id).status == "TRAINING_SESSION_STATUS_STOPPED"
    listed = pt.model_resources.list(status=[STOPPED])
    assert [r.id for r in listed.data] == [mr.id]
