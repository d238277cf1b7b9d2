"""The post-training guides' code, with their models, against the emulator through
`together==3.1.1`, changed only in where it connects (`base_url`) and with which key.

Sources (docs.together.ai/docs/post-training/...): training-loop ("trains a low-rank adapter
(LoRA) for Qwen3.8 27B on one sample for one step, then saves the adapter as an inference
checkpoint"; "Train on a batch": eight samples per step, the learning rate passed on every
`optim_step` with a linear decay; GRPO samples with `GrpoLossParams`; "Sample from the
generator": every prompt to `sample_batch` in one call with `num_samples`), multi-lora ("A
resource holds up to five sessions"), checkpoints, and supported-models ("Start with
`Qwen/Qwen3.8-27B`"). The stored copies of these pages this project reads stop after their first
lines of code (`from together.post_training import ComputeConfig, ModelResourcesClient`,
`AdamParams`), so each test follows the guide's steps with the SDK names the page shows; the
reference request examples are replayed by the spec's example tests.
"""

from __future__ import annotations

from typing import Any

import pytest
from ci_policy import import_required
from emulator_harness import LiveEmulator

import_required("together", "3.1.1")
from together import RateLimitError  # noqa: E402
from together.post_training import (  # noqa: E402
    AdamParams,
    ComputeConfig,
    GrpoLossParams,
    ModelResourcesClient,
    SamplingParams,
)

MODEL = "Qwen/Qwen3.8-27B"  # supported-models: "Start with Qwen/Qwen3.8-27B"
PROMPT = [9419, 0, 198]  # "Hello!\n" in the model's vocabulary
RESPONSE = [4537, 198]  # "END\n"


def _resources(live: LiveEmulator, **fields: Any) -> ModelResourcesClient:
    return ModelResourcesClient.create(
        base_model=MODEL, api_key=live.api_key, base_url=live.base_url, interval=0.01, **fields
    )


def _ce_sample(prompt: list[int], response: list[int]) -> dict[str, Any]:
    tokens = prompt + response
    weights = [0.0] * (len(prompt) - 1) + [1.0] * len(response)
    return {
        "model_input": {"chunks": [{"encoded_text": {"tokens": tokens[:-1]}}]},
        "loss_fn_inputs": {
            "target_tokens": {"data": tokens[1:], "dtype": "int64"},
            "weights": {"data": weights, "dtype": "float32"},
        },
    }


def test_training_loop_minimal_loop(live_emulator: LiveEmulator) -> None:
    resources = _resources(live_emulator, compute_config=ComputeConfig(num_generator_replicas=1))
    try:
        with resources.create_session(interval=0.01) as session:
            result = session.trainer.forward_backward(
                samples=[_ce_sample(PROMPT, RESPONSE)],
                loss={"type": "LOSS_TYPE_CROSS_ENTROPY"},
                interval=0.01,
            )
            assert result.loss > 0
            step = session.trainer.optim_step(
                adam_params=AdamParams(learning_rate=1e-4), interval=0.01
            )
            assert int(step.step) == 1
            checkpoint = session.create_inference_checkpoint(interval=0.01)
            assert checkpoint.id
    finally:
        resources.stop(force=True)


def test_training_loop_batches_grpo_and_sampling(live_emulator: LiveEmulator) -> None:
    num_steps, batch = 3, [_ce_sample(PROMPT, RESPONSE)] * 8
    resources = _resources(live_emulator)  # the defaults: one generator replica
    try:
        with resources.create_session(interval=0.01) as session:
            trainer, generator = session.trainer, session.generator
            for step in range(num_steps):
                learning_rate = 1e-4 * (1 - step / num_steps)  # linear decay
                trainer.forward_backward(samples=batch, loss={"type": "LOSS_TYPE_CROSS_ENTROPY"},
                                         interval=0.01)  # fmt: skip
                trainer.optim_step(adam_params=AdamParams(learning_rate=learning_rate),
                                   interval=0.01)  # fmt: skip
            trainer.weights_sync(interval=0.01)
            prompts = [{"chunks": [{"encoded_text": {"tokens": PROMPT}}]}] * 2
            results = generator.sample_batch(
                prompts, num_samples=4,
                sampling_params=SamplingParams(max_tokens=16, temperature=1.0, stop=["\n", "END"]),
                interval=0.01,
            )  # fmt: skip
            assert len(results) == 2 and all(len(r.sequences) == 4 for r in results)
            grpo_samples = []
            for sequence in results[0].sequences:
                tokens = PROMPT + list(sequence.tokens)
                n = len(sequence.tokens)
                grpo_samples.append({
                    "model_input": {"chunks": [{"encoded_text": {"tokens": tokens[:-1]}}]},
                    "loss_fn_inputs": {
                        "target_tokens": {"data": tokens[1:], "dtype": "int64"},
                        "logprobs": {"data": [0.0] * (len(PROMPT) - 1) + list(sequence.logprobs),
                                     "dtype": "float32"},
                        "advantages": {"data": [0.0] * (len(PROMPT) - 1) + [0.5] * n,
                                       "dtype": "float32"},
                    },
                })  # fmt: skip
            grpo = trainer.forward_backward(
                samples=grpo_samples,
                loss={"type": "LOSS_TYPE_GRPO",
                      "grpo_params": GrpoLossParams(clip_low_threshold=0.8,
                                                    clip_high_threshold=1.28, beta=0.0)},
                interval=0.01,
            )  # fmt: skip
            assert grpo.loss == grpo.loss  # finite (not NaN)
    finally:
        resources.stop(force=True)


def test_multi_lora_five_sessions_share_one_resource(live_emulator: LiveEmulator) -> None:
    resources = _resources(live_emulator)
    sessions = []
    try:
        for rank in (8, 16, 32, 8, 16):  # a sweep: one adapter per session
            sessions.append(resources.create_session(lora_config={"rank": rank}, interval=0.01))
        with pytest.raises(RateLimitError, match="sessions"):
            resources.create_session(interval=0.01, timeout=5)
        for session in sessions:
            session.trainer.forward_backward(samples=[_ce_sample(PROMPT, RESPONSE)],
                                             loss={"type": "LOSS_TYPE_CROSS_ENTROPY"},
                                             interval=0.01)  # fmt: skip
    finally:
        for session in sessions:
            session.stop()
        resources.stop(force=True)


def test_checkpoints_save_and_resume_on_the_published_model(live_emulator: LiveEmulator) -> None:
    resources = _resources(live_emulator)
    try:
        with resources.create_session(interval=0.01) as session:
            session.trainer.forward_backward(samples=[_ce_sample(PROMPT, RESPONSE)],
                                             loss={"type": "LOSS_TYPE_CROSS_ENTROPY"},
                                             interval=0.01)  # fmt: skip
            session.trainer.optim_step(adam_params=AdamParams(learning_rate=1e-4), interval=0.01)
            saved = session.create_training_checkpoint(interval=0.01)
        with resources.create_session(resume_from_checkpoint_id=saved.id,
                                      interval=0.01) as resumed:  # fmt: skip
            assert int(resumed.retrieve().step) == 1
    finally:
        resources.stop(force=True)
