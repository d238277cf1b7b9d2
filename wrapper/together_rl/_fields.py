# Derived from spec/openapi.yaml by scripts/derive_fields.py (make generate, make derive): edit
# the spec, not this.
"""The fields of the spec's parameter objects and request bodies, as the wrapper takes them:
``<Schema>Fields`` are frozen dataclasses (every field optional, keyword-only, ``None`` for
unset), ``<Schema>Keywords`` the optional fields of a body as keyword arguments. A ``$ref`` to an
enum is a ``str`` (short names are expanded), to an int64 an ``int``, to an object a mapping."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypedDict

from together_rl_client import models

__all__ = [
    "EXCLUSIVE_INPUTS",
    "INPUT_DTYPES",
    "LOSS_TYPES",
    "UPLOAD_THRESHOLD_BYTES",
    "AdamParamsFields",
    "AdamParamsKeywords",
    "CISPOLossParamsFields",
    "CrossEntropyLossParamsFields",
    "DPPOLossParamsFields",
    "DROLossParamsFields",
    "GRPOLossParamsFields",
    "ModelResourcesCreateKeywords",
    "PPOLossParamsFields",
    "RolloutEstimateRequestKeywords",
    "SamplingParamsFields",
    "SamplingParamsKeywords",
    "SessionCreateKeywords",
    "SessionUpdateKeywords",
]

#: Operation bodies whose compact JSON is longer are uploaded (x-upload-threshold-bytes)
UPLOAD_THRESHOLD_BYTES = 524288
#: ``loss_fn_inputs`` key -> its dtypes, the first sent for a bare array or list
INPUT_DTYPES: dict[str, tuple[str, ...]] = {
    "target_tokens": ("int64",),
    "logprobs": ("float32",),
    "advantages": ("float32",),
    "reference_logprobs": ("float32",),
    "weights": ("float32", "int64"),
    "mask": ("int64", "float32"),
}
#: groups of ``loss_fn_inputs`` keys of which a sample holds one at most
EXCLUSIVE_INPUTS: tuple[tuple[str, ...], ...] = (("weights", "mask"),)
#: loss type -> its ``LossConfig`` params key and the inputs every sample needs
LOSS_TYPES: dict[str, tuple[str | None, frozenset[str]]] = {
    "LOSS_TYPE_CROSS_ENTROPY": ("cross_entropy_params", frozenset(["target_tokens", "weights"])),
    "LOSS_TYPE_GRPO": ("grpo_params", frozenset(["advantages", "logprobs", "target_tokens"])),
    "LOSS_TYPE_IMPORTANCE_SAMPLING": (None, frozenset(["advantages", "logprobs", "target_tokens"])),
    "LOSS_TYPE_PPO": ("ppo_params", frozenset(["advantages", "logprobs", "target_tokens"])),
    "LOSS_TYPE_CISPO": ("cispo_params", frozenset(["advantages", "logprobs", "target_tokens"])),
    "LOSS_TYPE_DRO": ("dro_params", frozenset(["advantages", "logprobs", "target_tokens"])),
    "LOSS_TYPE_DPPO": ("dppo_params", frozenset(["advantages", "logprobs", "target_tokens"])),
}


@dataclass(frozen=True, kw_only=True)
class AdamParamsFields:
    """The fields of the spec's ``AdamParams``."""

    spec_model: ClassVar[type | None] = models.AdamParams
    learning_rate: float | None = None
    beta1: float | None = None
    beta2: float | None = None
    eps: float | None = None
    weight_decay: float | None = None
    grad_clip_norm: float | None = None


@dataclass(frozen=True, kw_only=True)
class SamplingParamsFields:
    """The fields of the spec's ``SamplingParams``."""

    spec_model: ClassVar[type | None] = models.SamplingParams
    max_tokens: int | None = None
    seed: int | None = None
    stop: Sequence[str] | None = None
    temperature: float | None = None
    top_k: int | None = None
    top_p: float | None = None


@dataclass(frozen=True, kw_only=True)
class CrossEntropyLossParamsFields:
    """The fields of the spec's ``CrossEntropyLossParams``."""

    spec_model: ClassVar[type | None] = models.CrossEntropyLossParams


@dataclass(frozen=True, kw_only=True)
class GRPOLossParamsFields:
    """The fields of the spec's ``GRPOLossParams``."""

    spec_model: ClassVar[type | None] = models.GRPOLossParams
    inputs_when_positive: ClassVar[dict[str, frozenset[str]]] = {
        "beta": frozenset(["reference_logprobs"])
    }
    clip_low_threshold: float | None = None
    clip_high_threshold: float | None = None
    beta: float | None = None
    agg_type: str | None = None
    ratio_type: str | None = None


@dataclass(frozen=True, kw_only=True)
class PPOLossParamsFields:
    """The fields of the spec's ``PPOLossParams``."""

    spec_model: ClassVar[type | None] = models.PPOLossParams
    clip_low_threshold: float | None = None
    clip_high_threshold: float | None = None


@dataclass(frozen=True, kw_only=True)
class CISPOLossParamsFields:
    """The fields of the spec's ``CISPOLossParams``."""

    spec_model: ClassVar[type | None] = models.CISPOLossParams
    clip_low_threshold: float | None = None
    clip_high_threshold: float | None = None


@dataclass(frozen=True, kw_only=True)
class DROLossParamsFields:
    """The fields of the spec's ``DROLossParams``."""

    spec_model: ClassVar[type | None] = models.DROLossParams
    beta: float | None = None


@dataclass(frozen=True, kw_only=True)
class DPPOLossParamsFields:
    """The fields of the spec's ``DPPOLossParams``."""

    spec_model: ClassVar[type | None] = models.DPPOLossParams
    delta_low: float | None = None
    delta_high: float | None = None


class AdamParamsKeywords(TypedDict, total=False):
    """The optional fields of the spec's ``AdamParams``, as keyword arguments."""

    learning_rate: float | None
    beta1: float | None
    beta2: float | None
    eps: float | None
    weight_decay: float | None
    grad_clip_norm: float | None


class SamplingParamsKeywords(TypedDict, total=False):
    """The optional fields of the spec's ``SamplingParams``, as keyword arguments."""

    max_tokens: int | None
    seed: int | None
    stop: Sequence[str] | None
    temperature: float | None
    top_k: int | None
    top_p: float | None


class SessionCreateKeywords(TypedDict, total=False):
    """The optional fields of the spec's ``SessionCreate``, as keyword arguments."""

    display_name: str | None
    load_optimizer: bool | None
    lora_config: Mapping[str, Any] | None
    metadata: Mapping[str, Any] | None
    resume_from_checkpoint_id: str | None


class SessionUpdateKeywords(TypedDict, total=False):
    """The optional fields of the spec's ``SessionUpdate``, as keyword arguments."""

    display_name: str | None
    metadata: Mapping[str, Any] | None


class ModelResourcesCreateKeywords(TypedDict, total=False):
    """The optional fields of the spec's ``ModelResourcesCreate``, as keyword arguments."""

    base_weights_ref: str | None
    compute_config: Mapping[str, Any] | None
    inactive_timeout: int | None
    lora_enabled: bool | None
    optimizer_config: Mapping[str, Any] | None


class RolloutEstimateRequestKeywords(TypedDict, total=False):
    """The optional fields of the spec's ``RolloutEstimateRequest``, as keyword arguments."""

    distinct_prompts_per_replica: int | None
    episodes_per_prompt: int | None
    gpu_type: str | None
    lora_enabled: bool | None
    num_generator_replicas: int | None
    sampling_only: bool | None
