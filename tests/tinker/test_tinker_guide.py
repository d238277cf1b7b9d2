"""docs.together.ai/docs/post-training/migrate-from-tinker: a Tinker script runs after changing
its import line "and, if needed, its base model" ("pick an ID from Supported models"); here with
`Qwen/Qwen3.8-27B`, against the emulator with only `base_url` and `api_key` given. The page's
code past its import line is not in the stored copy this project reads, so this follows the
page's steps: `create_lora_training_client` provisions a resource and opens a LoRA session,
then the usual Tinker calls."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest
from _tinker_helpers import READY, model_resources_by_status
from emulator_harness import LiveEmulator

MODEL = "Qwen/Qwen3.8-27B"
PROMPT = [9419, 0, 198]  # "Hello!\n"


def test_a_tinker_loop_on_the_published_starting_model(
    tinker: ModuleType, service_client: Any, live_emulator: LiveEmulator
) -> None:
    training_client = service_client.create_lora_training_client(base_model=MODEL, rank=32)
    try:
        tokens = [*PROMPT, 4537, 198]
        datum = tinker.Datum(
            model_input=tinker.ModelInput.from_ints(tokens[:-1]),
            loss_fn_inputs={
                "target_tokens": np.array(tokens[1:], dtype=np.int64),
                "weights": np.array([0.0, 0.0, 1.0, 1.0], dtype=np.float32),
            },
        )
        fb = training_client.forward_backward([datum], "cross_entropy").result()
        assert fb.metrics["loss:sum"] > 0
        training_client.optim_step(tinker.AdamParams(learning_rate=1e-4)).result()
        sampler = training_client.save_weights_and_get_sampling_client()
        response = sampler.sample(
            tinker.ModelInput.from_ints(PROMPT),
            4,
            tinker.SamplingParams(max_tokens=12, stop=["\n", "END"]),
        ).result()
        assert len(response.sequences) == 4
        for sequence in response.sequences:
            assert sequence.stop_reason in ("stop", "length")
        with pytest.warns(UserWarning, match="strings only"):  # token-id stops: dropped
            sampler.sample(tinker.ModelInput.from_ints(PROMPT), 1,
                           tinker.SamplingParams(max_tokens=2, stop=[198])).result()  # fmt: skip
    finally:
        training_client.close()
    assert READY not in model_resources_by_status(live_emulator).values()
