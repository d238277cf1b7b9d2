from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.model_input import ModelInput
    from ..models.sampling_params import SamplingParams


T = TypeVar("T", bound="SampleBody")


@_attrs_define
class SampleBody:
    """
    Attributes:
        model_inputs (list[ModelInput]):
        num_samples (int | Unset): Sequences per prompt. Omitted: 1.
        prompt_logprobs (bool | Unset):
        return_routed_experts (bool | Unset): True: on a mixture-of-experts model, each sequence comes back with a
            `routed_experts_key` under which the expert selections of its tokens are stored for
            training to reuse; ignored for other models.
        sampling_params (SamplingParams | Unset):
        topk_prompt_logprobs (int | Unset):
        payload_id (str | Unset): Set by the official SDK when it uploaded the full body (see `createPayloadUploadUrl`).
    """

    model_inputs: list[ModelInput]
    num_samples: int | Unset = UNSET
    prompt_logprobs: bool | Unset = UNSET
    return_routed_experts: bool | Unset = UNSET
    sampling_params: SamplingParams | Unset = UNSET
    topk_prompt_logprobs: int | Unset = UNSET
    payload_id: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        model_inputs = []
        for model_inputs_item_data in self.model_inputs:
            model_inputs_item = model_inputs_item_data.to_dict()
            model_inputs.append(model_inputs_item)

        num_samples = self.num_samples

        prompt_logprobs = self.prompt_logprobs

        return_routed_experts = self.return_routed_experts

        sampling_params: dict[str, Any] | Unset = UNSET
        if not isinstance(self.sampling_params, Unset):
            sampling_params = self.sampling_params.to_dict()

        topk_prompt_logprobs = self.topk_prompt_logprobs

        payload_id = self.payload_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "model_inputs": model_inputs,
            }
        )
        if num_samples is not UNSET:
            field_dict["num_samples"] = num_samples
        if prompt_logprobs is not UNSET:
            field_dict["prompt_logprobs"] = prompt_logprobs
        if return_routed_experts is not UNSET:
            field_dict["return_routed_experts"] = return_routed_experts
        if sampling_params is not UNSET:
            field_dict["sampling_params"] = sampling_params
        if topk_prompt_logprobs is not UNSET:
            field_dict["topk_prompt_logprobs"] = topk_prompt_logprobs
        if payload_id is not UNSET:
            field_dict["payload_id"] = payload_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.model_input import ModelInput
        from ..models.sampling_params import SamplingParams

        d = dict(src_dict)
        model_inputs = []
        _model_inputs = d.pop("model_inputs")
        for model_inputs_item_data in _model_inputs:
            model_inputs_item = ModelInput.from_dict(model_inputs_item_data)

            model_inputs.append(model_inputs_item)

        num_samples = d.pop("num_samples", UNSET)

        prompt_logprobs = d.pop("prompt_logprobs", UNSET)

        return_routed_experts = d.pop("return_routed_experts", UNSET)

        _sampling_params = d.pop("sampling_params", UNSET)
        sampling_params: SamplingParams | Unset
        if isinstance(_sampling_params, Unset):
            sampling_params = UNSET
        else:
            sampling_params = SamplingParams.from_dict(_sampling_params)

        topk_prompt_logprobs = d.pop("topk_prompt_logprobs", UNSET)

        payload_id = d.pop("payload_id", UNSET)

        sample_body = cls(
            model_inputs=model_inputs,
            num_samples=num_samples,
            prompt_logprobs=prompt_logprobs,
            return_routed_experts=return_routed_experts,
            sampling_params=sampling_params,
            topk_prompt_logprobs=topk_prompt_logprobs,
            payload_id=payload_id,
        )

        return sample_body


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [
        "model_inputs",
    ],
    "properties": {
        "model_inputs": {
            "minItems": 1,
        },
        "num_samples": {
            "minimum": 1.0,
            "x-server-default": 1,
        },
        "prompt_logprobs": {},
        "return_routed_experts": {},
        "sampling_params": {
            "class": "SamplingParams",
        },
        "topk_prompt_logprobs": {
            "minimum": 0.0,
            "maximum": 20.0,
        },
        "payload_id": {
            "minLength": 1,
        },
    },
}
