"""Base models the emulator serves: the published catalog, read from `catalog.json`.

Every fact of a model (ids, training modes, context lengths, adapter caps, vocabulary, size,
dense or mixture of experts) names its source in the data file; updating the catalog is an edit
of that file only. `emulator/tiny-1k` is the emulator's own model for fast tests.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from importlib.resources import files
from typing import Any

from ._spec import GPU_TYPES
from ._tokenizers import FAMILIES

__all__ = [
    "CATALOG",
    "CATALOG_FILE",
    "GPU_TYPE",
    "SAMPLING_DEFAULTS",
    "TINY_MODEL",
    "BaseModel",
    "load_catalog",
    "num_experts_of",
    "supported_models_body",
]

CATALOG_FILE = "catalog.json"
TRAINING_MODES = ("lora", "full")


@dataclass(frozen=True)
class BaseModel:
    name: str
    vocab_size: int
    max_batch_size: int
    max_seq_length: int  # the trainer's longest sample with LoRA
    context_length: int  # the generator's longest prompt plus completion
    parameters: int  # the model's weights: what the GPU model (`_gpu_model.py`) costs by
    active_parameters: int = 0  # weights a token goes through (all of them when dense)
    num_experts: int = 0  # routed experts per MoE layer; 0 for a dense model
    experts_per_token: int = 0  # experts the router picks for a token; 0 for a dense model
    training_modes: tuple[str, ...] = TRAINING_MODES
    max_seq_length_full: int = 0  # the trainer's longest sample full-weight; 0 without it
    max_lora_rank: int = 64
    max_lora_adapters: int = 5  # concurrent LoRA sessions a resource accepts
    tokenizer_family: str = "bytes"
    sources: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    @property
    def is_mixture_of_experts(self) -> bool:
        return self.num_experts > 0

    @property
    def supports_full_weight(self) -> bool:
        return "full" in self.training_modes


_DATA_KEYS = {
    "max_seq_length_lora": "max_seq_length",
    "generator_context_length": "context_length",
}


def _model(entry: dict[str, Any]) -> BaseModel:
    names = {f.name for f in fields(BaseModel)}
    values = {_DATA_KEYS.get(key, key): value for key, value in entry.items()}
    unknown = sorted(set(values) - names)
    if unknown:
        raise ValueError(f"{CATALOG_FILE}: {entry.get('name')!r} has unknown fields {unknown}")
    facts = set(entry) - {"sources"}
    unsourced = sorted(facts - set(entry.get("sources", {})))
    if unsourced:
        raise ValueError(f"{CATALOG_FILE}: {entry.get('name')!r} has no source for {unsourced}")
    values["training_modes"] = tuple(values.get("training_modes", TRAINING_MODES))
    if not values["training_modes"] or not set(values["training_modes"]) <= set(TRAINING_MODES):
        raise ValueError(f"{CATALOG_FILE}: {entry['name']!r} training_modes must be lora/full")
    if "lora" not in values["training_modes"]:
        raise ValueError(f"{CATALOG_FILE}: {entry['name']!r}: every model supports LoRA")
    if (values.get("num_experts", 0) > 0) != (values.get("experts_per_token", 0) > 0):
        raise ValueError(f"{CATALOG_FILE}: {entry['name']!r}: experts and experts per token")
    if values.get("tokenizer_family", "bytes") not in FAMILIES:
        raise ValueError(f"{CATALOG_FILE}: {entry['name']!r}: tokenizer_family one of {FAMILIES}")
    values.setdefault("active_parameters", values["parameters"])
    return BaseModel(**values)


def load_catalog(text: str | None = None) -> dict[str, BaseModel]:
    """The catalog of `catalog.json` (or of `text`, for tests), by model name."""
    if text is None:
        text = files("together_rl_emulator").joinpath(CATALOG_FILE).read_text(encoding="utf-8")
    models = [_model(entry) for entry in json.loads(text)["models"]]
    return {model.name: model for model in models}


CATALOG: dict[str, BaseModel] = load_catalog()

TINY_MODEL = "emulator/tiny-1k"

GPU_TYPE = GPU_TYPES[0]  # the one GPU type the emulator offers: the spec's first `GpuType`
# The generator defaults every model advertises, and what `sample` uses for an absent field.
SAMPLING_DEFAULTS: dict[str, Any] = {"logprobs": 0, "max_tokens": 512, "n": 1, "temperature": 1.0}


def _trainer_config(model: BaseModel) -> dict[str, Any]:
    config: dict[str, Any] = {
        "lora": {
            "max_batch_size": model.max_batch_size,
            "max_rank": model.max_lora_rank,
            "max_seq_length": model.max_seq_length,
        }
    }
    if model.supports_full_weight:
        config["full"] = {
            "max_batch_size": model.max_batch_size,
            "max_seq_length": model.max_seq_length_full,
        }
    return config


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
                        "trainer_config": _trainer_config(model),
                    }
                ],
            }
            for model in CATALOG.values()
        ]
    }


def num_experts_of(base_model: str) -> int:
    """The routed experts of `base_model` (0 for a dense or unknown model): what its session's
    policy is initialised with."""
    model = CATALOG.get(base_model)
    return 0 if model is None else model.num_experts
