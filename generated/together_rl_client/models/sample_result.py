from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.policy_version_segment import PolicyVersionSegment
    from ..models.prompt_top_logprobs import PromptTopLogprobs
    from ..models.sampled_sequence import SampledSequence


T = TypeVar("T", bound="SampleResult")


@_attrs_define
class SampleResult:
    """
    Attributes:
        policy_segments (list[PolicyVersionSegment]):
        sequences (list[SampledSequence]):
        prompt_logprobs (list[float] | Unset):
        topk_prompt_logprobs (list[PromptTopLogprobs] | Unset):
    """

    policy_segments: list[PolicyVersionSegment]
    sequences: list[SampledSequence]
    prompt_logprobs: list[float] | Unset = UNSET
    topk_prompt_logprobs: list[PromptTopLogprobs] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        policy_segments = []
        for policy_segments_item_data in self.policy_segments:
            policy_segments_item = policy_segments_item_data.to_dict()
            policy_segments.append(policy_segments_item)

        sequences = []
        for sequences_item_data in self.sequences:
            sequences_item = sequences_item_data.to_dict()
            sequences.append(sequences_item)

        prompt_logprobs: list[float] | Unset = UNSET
        if not isinstance(self.prompt_logprobs, Unset):
            prompt_logprobs = self.prompt_logprobs

        topk_prompt_logprobs: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.topk_prompt_logprobs, Unset):
            topk_prompt_logprobs = []
            for topk_prompt_logprobs_item_data in self.topk_prompt_logprobs:
                topk_prompt_logprobs_item = topk_prompt_logprobs_item_data.to_dict()
                topk_prompt_logprobs.append(topk_prompt_logprobs_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "policy_segments": policy_segments,
                "sequences": sequences,
            }
        )
        if prompt_logprobs is not UNSET:
            field_dict["prompt_logprobs"] = prompt_logprobs
        if topk_prompt_logprobs is not UNSET:
            field_dict["topk_prompt_logprobs"] = topk_prompt_logprobs

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.policy_version_segment import PolicyVersionSegment
        from ..models.prompt_top_logprobs import PromptTopLogprobs
        from ..models.sampled_sequence import SampledSequence

        d = dict(src_dict)
        policy_segments = []
        _policy_segments = d.pop("policy_segments")
        for policy_segments_item_data in _policy_segments:
            policy_segments_item = PolicyVersionSegment.from_dict(policy_segments_item_data)

            policy_segments.append(policy_segments_item)

        sequences = []
        _sequences = d.pop("sequences")
        for sequences_item_data in _sequences:
            sequences_item = SampledSequence.from_dict(sequences_item_data)

            sequences.append(sequences_item)

        prompt_logprobs = cast(list[float], d.pop("prompt_logprobs", UNSET))

        _topk_prompt_logprobs = d.pop("topk_prompt_logprobs", UNSET)
        topk_prompt_logprobs: list[PromptTopLogprobs] | Unset = UNSET
        if _topk_prompt_logprobs is not UNSET:
            topk_prompt_logprobs = []
            for topk_prompt_logprobs_item_data in _topk_prompt_logprobs:
                topk_prompt_logprobs_item = PromptTopLogprobs.from_dict(
                    topk_prompt_logprobs_item_data
                )

                topk_prompt_logprobs.append(topk_prompt_logprobs_item)

        sample_result = cls(
            policy_segments=policy_segments,
            sequences=sequences,
            prompt_logprobs=prompt_logprobs,
            topk_prompt_logprobs=topk_prompt_logprobs,
        )

        sample_result.additional_properties = d
        return sample_result

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
        "policy_segments",
        "sequences",
    ],
    "properties": {
        "policy_segments": {},
        "sequences": {},
        "prompt_logprobs": {},
        "topk_prompt_logprobs": {},
    },
}
