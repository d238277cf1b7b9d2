from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.stop_reason import StopReason
from ..types import UNSET, Unset

T = TypeVar("T", bound="SampledSequence")


@_attrs_define
class SampledSequence:
    """
    Attributes:
        prompt_cache_hit_tokens (int):
        stop_reason (StopReason):
        tokens (list[int]):
        logprobs (list[float] | Unset):
        routed_experts_key (str | Unset): Opaque key of this sequence's expert selections, for router replay: pass it
            unchanged
            with the corresponding training sample. Absent for non-mixture-of-experts models or
            when `return_routed_experts` is disabled (together==3.1.1
            `SampledSequence.routed_experts_key`).
    """

    prompt_cache_hit_tokens: int
    stop_reason: StopReason
    tokens: list[int]
    logprobs: list[float] | Unset = UNSET
    routed_experts_key: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        prompt_cache_hit_tokens = self.prompt_cache_hit_tokens

        stop_reason = self.stop_reason.value

        tokens = self.tokens

        logprobs: list[float] | Unset = UNSET
        if not isinstance(self.logprobs, Unset):
            logprobs = self.logprobs

        routed_experts_key = self.routed_experts_key

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "prompt_cache_hit_tokens": prompt_cache_hit_tokens,
                "stop_reason": stop_reason,
                "tokens": tokens,
            }
        )
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs
        if routed_experts_key is not UNSET:
            field_dict["routed_experts_key"] = routed_experts_key

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        prompt_cache_hit_tokens = d.pop("prompt_cache_hit_tokens")

        stop_reason = StopReason(d.pop("stop_reason"))

        tokens = cast(list[int], d.pop("tokens"))

        logprobs = cast(list[float], d.pop("logprobs", UNSET))

        routed_experts_key = d.pop("routed_experts_key", UNSET)

        sampled_sequence = cls(
            prompt_cache_hit_tokens=prompt_cache_hit_tokens,
            stop_reason=stop_reason,
            tokens=tokens,
            logprobs=logprobs,
            routed_experts_key=routed_experts_key,
        )

        sampled_sequence.additional_properties = d
        return sampled_sequence

    @property
    def additional_keys(self) -> list[str]:
        """The names of the properties the spec does not declare."""
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [
        "prompt_cache_hit_tokens",
        "stop_reason",
        "tokens",
    ],
    "properties": {
        "prompt_cache_hit_tokens": {},
        "stop_reason": {
            "class": "StopReason",
        },
        "tokens": {},
        "logprobs": {},
        "routed_experts_key": {},
    },
}
