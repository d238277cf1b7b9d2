"""The official SDK `together==3.1.1` against the emulator over loopback, for the other
operation kinds: its raw resource methods (optim_step, sample, weights_sync, custom_forward_backward
and their retrieve_*), and its hand-written Trainer/Generator, including a forward-backward batch
over 0.5 MiB (upload + offloaded result download)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import numpy as np
import orjson
import pytest
from _emulator_bodies import TINY, fb_body, stats, wait_sdk_operation
from _operation_kind_bodies import custom_body, model_input
from ci_policy import import_required
from emulator_harness import COMPLETED, LiveEmulator
from together_rl_spec import upload_threshold_bytes

together = import_required("together", "3.1.1")
from together import BadRequestError, Together  # noqa: E402
from together.post_training import ModelResourcesClient  # noqa: E402

PAYLOAD_ROUTES = (
    "POST /v1/rl/training-sessions/{session_id}/payloads/upload-url",
    "POST /v1/rl/training-sessions/{session_id}/payloads/{payload_id}/download-url",
)


def _wait(retrieve: Any, session_id: str, operation_id: str) -> Any:
    op = wait_sdk_operation(retrieve, session_id, operation_id)
    assert op.status == COMPLETED, op
    return op


def _key() -> str:
    return str(uuid.uuid4())


def test_raw_methods_of_every_new_operation(sdk: Together) -> None:
    pt = sdk.post_training
    ops = pt.operations
    mr = pt.model_resources.create(base_model=TINY)
    sid = pt.sessions.create(model_resources_id=mr.id).id

    body = fb_body()
    fb = ops.forward_backward(sid, idempotency_key=_key(), loss=body["loss"],
                              samples=body["samples"])  # fmt: skip
    _wait(ops.retrieve_forward_backward, sid, fb.id)

    step = ops.optim_step(sid, idempotency_key=_key(), adam_params={"learning_rate": 0.01})
    done = _wait(ops.retrieve_optim_step, sid, step.id)
    assert done.output is not None and int(done.output.step) == 1
    with pytest.raises(BadRequestError, match=r"without optimizer_config\.muon"):
        ops.optim_step(sid, idempotency_key=_key(), muon_params={"momentum": 0.9})

    sync = ops.weights_sync(
        sid, idempotency_key=_key(), weight_sync_type="WEIGHT_SYNC_TYPE_PIPELINE"
    )
    synced = _wait(ops.retrieve_weights_sync, sid, sync.id)
    assert synced.output is not None and int(synced.output.weights_version) == 1

    sampled_ops = [
        ops.sample(
            sid,
            idempotency_key=_key(),
            model_inputs=[model_input([1, 2, 3])],
            num_samples=2,
            sampling_params={"max_tokens": 6, "seed": 5},
            prompt_logprobs=True,
        )
        for _ in range(2)
    ]
    results = [_wait(ops.retrieve_sample, sid, op.id).output.results[0] for op in sampled_ops]
    assert results[0].sequences[0].tokens == results[1].sequences[0].tokens
    assert len(results[0].sequences) == 2 and len(results[0].sequences[0].logprobs) == 6
    assert results[0].policy_segments[0].version == 1
    assert results[0].prompt_logprobs is not None and results[0].prompt_logprobs[0] == 0.0

    custom = custom_body([1, 2, 3], [2, 3, 4], [-1.0, -1.0, -1.0])
    cfb = ops.custom_forward_backward(sid, idempotency_key=_key(), samples=custom["samples"],
                                      gradients=custom["gradients"])  # fmt: skip
    done_custom = _wait(ops.retrieve_custom_forward_backward, sid, cfb.id)
    assert done_custom.id == cfb.id
    with httpx.Client(base_url=sdk.base_url.copy_with(path="/")) as http:
        counters = stats(http, Authorization=f"Bearer {sdk.api_key}")
    assert counters["sessions"][sid]["accumulated_passes"] == 1  # the custom gradient is pending
    assert counters["sessions"][sid]["accumulated_grad_norm"] > 0
    assert str(pt.sessions.retrieve(sid).step) == "1"  # one optim-step so far


def _big_ce_batch(n_samples: int, length: int, vocab: int = 1024) -> list[dict[str, Any]]:
    rng = np.random.default_rng(0)
    return [
        {
            "model_input": model_input(rng.integers(0, vocab, length).tolist()),
            "loss_fn_inputs": {
                "target_tokens": {
                    "data": rng.integers(0, vocab, length).tolist(),
                    "dtype": "int64",
                },
                "weights": {"data": [1.0] * length, "dtype": "float32"},
            },
        }
        for _ in range(n_samples)
    ]


def test_trainer_and_generator_with_large_payloads(live_emulator: LiveEmulator) -> None:
    resources = ModelResourcesClient.create(
        api_key=live_emulator.api_key, base_url=live_emulator.base_url, base_model=TINY,
        compute_config={"num_generator_replicas": 1},
    )  # fmt: skip
    try:
        session = resources.create_session(display_name="operation-kinds", interval=0.01)
        with session:
            assert session.has_generator
            trainer, generator = session.trainer, session.generator
            batch = _big_ce_batch(8, 8000)
            assert len(orjson.dumps({"samples": batch})) > upload_threshold_bytes()  # uploaded
            loss = {"type": "LOSS_TYPE_CROSS_ENTROPY"}
            scored = trainer.forward(samples=batch, loss=loss, interval=0.01)
            outputs = scored.loss_fn_outputs or []  # downloaded: the result was offloaded too
            assert len(outputs) == 8 and len(outputs[0].tensors["logprobs"].data) == 8000
            result = trainer.forward_backward(samples=batch, loss=loss, interval=0.01)
            assert result.loss == pytest.approx(scored.loss)

            with httpx.Client(base_url=live_emulator.base_url) as http:
                counters = stats(http, **live_emulator.headers())
            assert all(counters["requests"].get(route, 0) >= 1 for route in PAYLOAD_ROUTES)
            assert counters["sessions"][session.session_id]["accumulated_passes"] == 1

            prompt = model_input([5, 17, 300])
            before = generator.sample(prompt, num_samples=2, sampling_params={"max_tokens": 5,
                                      "seed": 3}, interval=0.01)  # fmt: skip
            step = trainer.optim_step(adam_params={"learning_rate": 0.05}, interval=0.01)
            assert int(step.step) == 1
            unsynced = generator.sample(prompt, num_samples=2, sampling_params={"max_tokens": 5,
                                        "seed": 3}, interval=0.01)  # fmt: skip
            assert unsynced.sequences == before.sequences
            synced = trainer.weights_sync(interval=0.01)
            assert int(synced.weights_version) == 1
            after = generator.sample(prompt, num_samples=2, sampling_params={"max_tokens": 5,
                                     "seed": 3}, interval=0.01)  # fmt: skip
            assert after.policy_segments[0].version == 1
            assert [s.logprobs for s in after.sequences] != [s.logprobs for s in before.sequences]
            logprobs = generator.compute_logprobs(prompt, interval=0.01)
            assert len(logprobs) == 3 and logprobs[0] == 0.0

            gradients = [{"data": [-1.0] * 8000, "dtype": "D_TYPE_FLOAT32"} for _ in batch]
            trainer.custom_forward_backward(samples=batch, gradients=gradients, interval=0.01)
            with httpx.Client(base_url=live_emulator.base_url) as http:
                counters = stats(http, **live_emulator.headers())
            assert counters["operations_created"]["custom-forward-backward"] == 1
            assert counters["sessions"][session.session_id]["accumulated_passes"] == 1
    finally:
        resources.detach()


def test_muon_through_the_official_sdk(sdk: Together) -> None:
    """Resources created with `optimizer_config.muon` take the SDK's `muon_params` (the optim-step
    reference example's values) and refuse `adam_params`."""
    pt = sdk.post_training
    ops = pt.operations
    mr = pt.model_resources.create(
        base_model=TINY,
        optimizer_config={"muon": {"scaling_strategy": "MUON_SCALING_STRATEGY_ORIGINAL"}},
    )
    sid = pt.sessions.create(model_resources_id=mr.id).id
    body = fb_body()
    fb = ops.forward_backward(sid, idempotency_key=_key(), loss=body["loss"],
                              samples=body["samples"])  # fmt: skip
    _wait(ops.retrieve_forward_backward, sid, fb.id)
    muon = {"learning_rate": 0.02, "momentum": 0.95, "newton_schulz_steps": 5, "weight_decay": 0,
            "grad_clip_norm": 10, "adam": {"learning_rate": 0.0001, "beta1": 0.9, "beta2": 0.95,
                                           "eps": 1e-8, "weight_decay": 0.1}}  # fmt: skip
    step = ops.optim_step(sid, idempotency_key=_key(), muon_params=muon)  # type: ignore[arg-type]
    assert int(_wait(ops.retrieve_optim_step, sid, step.id).output.step) == 1
    with pytest.raises(BadRequestError, match=r"muon_params\.adam"):
        ops.optim_step(sid, idempotency_key=_key(), adam_params={"learning_rate": 0.01})
