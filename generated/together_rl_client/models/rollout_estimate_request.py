from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.gpu_type import GpuType
from ..types import UNSET, Unset

T = TypeVar("T", bound="RolloutEstimateRequest")


@_attrs_define
class RolloutEstimateRequest:
    """Episode shape, model, GPU type and concurrency for a rollout-only estimate (the letters
    are the reference's). The optional fields beyond `distinct_prompts_per_replica` and
    `episodes_per_prompt` (GPU type, training mode, resource layout) are named after
    `POST /rl/model-resources`; the reference's own names for them are unconfirmed.
    The rule JSON Schema cannot state is `x-at-least`: each named property is at least the
    property it names (when both are present).

        Attributes:
            episodes (int): Total number of episodes (N).
            concurrency (int): Most episodes running at once, over all generator replicas (B).
            prompt_tokens (int): Initial prompt tokens per episode (P).
            turns (int): Assistant turns per episode (T).
            added_tokens_per_turn (int): Tokens added before each later turn (K): the earlier turn's generated tokens
                followed by the environment's tokens. At least `generated_tokens_per_turn`.
            generated_tokens_per_turn (int): Tokens generated on each turn (O).
            base_model (str): The base model to estimate; the model, GPU type and training mode must support rollout
                estimates. Example: zai-org/GLM-5.3.
            distinct_prompts_per_replica (int | Unset): Distinct initial prompts among the running episodes of one replica
                (Q).
            episodes_per_prompt (int | Unset): Episodes that share one initial prompt.
            gpu_type (GpuType | Unset):
            lora_enabled (bool | Unset): The training mode the rates are measured in; LoRA when absent.
            num_generator_replicas (int | Unset): Generator replicas of the model resource.
            sampling_only (bool | Unset): A sampling-only resource (no trainer GPUs billed).
    """

    episodes: int
    concurrency: int
    prompt_tokens: int
    turns: int
    added_tokens_per_turn: int
    generated_tokens_per_turn: int
    base_model: str
    distinct_prompts_per_replica: int | Unset = UNSET
    episodes_per_prompt: int | Unset = UNSET
    gpu_type: GpuType | Unset = UNSET
    lora_enabled: bool | Unset = UNSET
    num_generator_replicas: int | Unset = UNSET
    sampling_only: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        episodes = self.episodes

        concurrency = self.concurrency

        prompt_tokens = self.prompt_tokens

        turns = self.turns

        added_tokens_per_turn = self.added_tokens_per_turn

        generated_tokens_per_turn = self.generated_tokens_per_turn

        base_model = self.base_model

        distinct_prompts_per_replica = self.distinct_prompts_per_replica

        episodes_per_prompt = self.episodes_per_prompt

        gpu_type: str | Unset = UNSET
        if not isinstance(self.gpu_type, Unset):
            gpu_type = self.gpu_type.value

        lora_enabled = self.lora_enabled

        num_generator_replicas = self.num_generator_replicas

        sampling_only = self.sampling_only

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "episodes": episodes,
                "concurrency": concurrency,
                "prompt_tokens": prompt_tokens,
                "turns": turns,
                "added_tokens_per_turn": added_tokens_per_turn,
                "generated_tokens_per_turn": generated_tokens_per_turn,
                "base_model": base_model,
            }
        )
        if distinct_prompts_per_replica is not UNSET:
            field_dict["distinct_prompts_per_replica"] = distinct_prompts_per_replica
        if episodes_per_prompt is not UNSET:
            field_dict["episodes_per_prompt"] = episodes_per_prompt
        if gpu_type is not UNSET:
            field_dict["gpu_type"] = gpu_type
        if lora_enabled is not UNSET:
            field_dict["lora_enabled"] = lora_enabled
        if num_generator_replicas is not UNSET:
            field_dict["num_generator_replicas"] = num_generator_replicas
        if sampling_only is not UNSET:
            field_dict["sampling_only"] = sampling_only

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        episodes = d.pop("episodes")

        concurrency = d.pop("concurrency")

        prompt_tokens = d.pop("prompt_tokens")

        turns = d.pop("turns")

        added_tokens_per_turn = d.pop("added_tokens_per_turn")

        generated_tokens_per_turn = d.pop("generated_tokens_per_turn")

        base_model = d.pop("base_model")

        distinct_prompts_per_replica = d.pop("distinct_prompts_per_replica", UNSET)

        episodes_per_prompt = d.pop("episodes_per_prompt", UNSET)

        _gpu_type = d.pop("gpu_type", UNSET)
        gpu_type: GpuType | Unset
        if isinstance(_gpu_type, Unset):
            gpu_type = UNSET
        else:
            gpu_type = GpuType(_gpu_type)

        lora_enabled = d.pop("lora_enabled", UNSET)

        num_generator_replicas = d.pop("num_generator_replicas", UNSET)

        sampling_only = d.pop("sampling_only", UNSET)

        rollout_estimate_request = cls(
            episodes=episodes,
            concurrency=concurrency,
            prompt_tokens=prompt_tokens,
            turns=turns,
            added_tokens_per_turn=added_tokens_per_turn,
            generated_tokens_per_turn=generated_tokens_per_turn,
            base_model=base_model,
            distinct_prompts_per_replica=distinct_prompts_per_replica,
            episodes_per_prompt=episodes_per_prompt,
            gpu_type=gpu_type,
            lora_enabled=lora_enabled,
            num_generator_replicas=num_generator_replicas,
            sampling_only=sampling_only,
        )

        return rollout_estimate_request


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "x-at-least": {"added_tokens_per_turn": "generated_tokens_per_turn"},
    "required": [
        "episodes",
        "concurrency",
        "prompt_tokens",
        "turns",
        "added_tokens_per_turn",
        "generated_tokens_per_turn",
        "base_model",
    ],
    "properties": {
        "episodes": {
            "minimum": 1.0,
            "maximum": 10000000.0,
        },
        "concurrency": {
            "minimum": 1.0,
        },
        "prompt_tokens": {
            "minimum": 1.0,
        },
        "turns": {
            "minimum": 1.0,
            "maximum": 1024.0,
        },
        "added_tokens_per_turn": {},
        "generated_tokens_per_turn": {
            "minimum": 1.0,
        },
        "base_model": {
            "minLength": 1,
            "maxLength": 256,
        },
        "distinct_prompts_per_replica": {
            "minimum": 1.0,
        },
        "episodes_per_prompt": {
            "minimum": 1.0,
        },
        "gpu_type": {
            "class": "GpuType",
        },
        "lora_enabled": {
            "x-server-default": True,
        },
        "num_generator_replicas": {
            "minimum": 1.0,
            "x-server-default": 1,
        },
        "sampling_only": {
            "x-server-default": False,
        },
    },
}
