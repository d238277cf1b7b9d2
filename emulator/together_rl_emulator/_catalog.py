"""Base models the emulator serves, with their real vocabulary sizes, limits and sizes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._spec import GPU_TYPES

__all__ = [
    "CATALOG",
    "GPU_TYPE",
    "SAMPLING_DEFAULTS",
    "TINY_MODEL",
    "BaseModel",
    "supported_models_body",
]


@dataclass(frozen=True)
class BaseModel:
    name: str
    vocab_size: int
    max_batch_size: int
    max_seq_length: int
    context_length: int
    parameters: int  # the model's weights: what the GPU model (`_gpu_model.py`) costs by


CATALOG: dict[str, BaseModel] = {
    model.name: model
    for model in (
        # Parameter counts from the model cards: Qwen3-8B "8.2B"; Llama 3.1 8B 8,030,261,248.
        BaseModel("Qwen/Qwen3-8B", 151_936, 256, 32_768, 32_768, 8_200_000_000),
        BaseModel("meta-llama/Llama-3.1-8B-Instruct", 128_256, 256, 32_768, 131_072, 8_030_261_248),
        # Small enough for fast tests: a full bigram policy, exact softmax over 1,024 tokens.
        # Its weights are those of `_policy_model`: b (1,024) + W (1,024 x 16) + E (1,024 x 16).
        BaseModel("emulator/tiny-1k", 1_024, 256, 8_192, 8_192, 33_792),
    )
}

TINY_MODEL = "emulator/tiny-1k"

GPU_TYPE = GPU_TYPES[0]  # the one GPU type the emulator offers: the spec's first `GpuType`
# The generator defaults every model advertises, and what `sample` uses for an absent field.
SAMPLING_DEFAULTS: dict[str, Any] = {"logprobs": 0, "max_tokens": 512, "n": 1, "temperature": 1.0}


def supported_models_body() -> dict[str, Any]:
    """The `SupportedModels` body of `GET /rl/supported-models`."""
    return {
        "data": [
            {
                "base_model": model.name,
                "default_gpu_type": GPU_TYPE,
                "compute_configs": [
                    {
                        "gpu_type": GPU_TYPE,
                        "generator_config": {
                            "context_length": model.context_length,
                            "sampling_defaults": dict(SAMPLING_DEFAULTS),
                        },
                        "trainer_config": {
                            "full": {
                                "max_batch_size": model.max_batch_size,
                                "max_seq_length": model.max_seq_length,
                            },
                            "lora": {
                                "max_batch_size": model.max_batch_size,
                                "max_rank": 64,
                                "max_seq_length": model.max_seq_length,
                            },
                        },
                    }
                ],
            }
            for model in CATALOG.values()
        ]
    }
