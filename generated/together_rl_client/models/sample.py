from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.loss_fn_inputs import LossFnInputs
    from ..models.model_input import ModelInput


T = TypeVar("T", bound="Sample")


@_attrs_define
class Sample:
    """One training sample. `model_input` is `(prompt + response)[:-1]`; the `loss_fn_inputs`
    tensors have one slot per model-input token.

        Attributes:
            model_input (ModelInput): The model input, as chunks concatenated in order.
            loss_fn_inputs (LossFnInputs): Per-token loss tensors keyed by name. Every tensor is 1-D and exactly as long as
                the
                sample's model input (its tokens across all chunks); slot t describes the token predicted
                at input position t, i.e. `(prompt+response)[t+1]`. Keys and dtypes:
                `target_tokens` (int64; required by every loss), `logprobs` (float32; the sampler's
                log-probs), `advantages` (float32), `reference_logprobs` (float32; GRPO only),
                `weights` (int64 or float32, non-negative), `mask` (int64 or float32). `weights` and
                `mask` are mutually exclusive. Which keys each loss requires is given in `LossType`.
                Unknown keys are accepted and ignored (the official SDK only warns about them).
                The rules JSON Schema cannot state are the `x-` keywords below. An empty object
                passes the schema, as the API reference sends one; every loss then refuses the sample
                and names the inputs it lacks (`LossConfig`'s `x-required-inputs`).
            routed_experts_key (str | Unset): Opaque key returned with a sampled sequence
                (`SampledSequence.routed_experts_key`);
                passed unchanged with the corresponding training sample, the pass reuses the expert
                selections the sampler made (router replay, mixture-of-experts models). "The
                selections must cover the entire training sample or all but its final token.
                Training fails if the key is no longer available." (together==3.1.1
                `Sample.routed_experts_key`; the forward-backward and custom-forward-backward
                reference pages show the field). The operation fails with
                `TRAINING_OPERATION_ERROR_CODE_INVALID_INPUT` when the key is unknown or another API
                key's, expired (an hour after its sample), of another base model, or shorter than
                the sample minus its final token (docs/emulator.md, "Router replay").
    """

    model_input: ModelInput
    loss_fn_inputs: LossFnInputs
    routed_experts_key: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        model_input = self.model_input.to_dict()

        loss_fn_inputs = self.loss_fn_inputs.to_dict()

        routed_experts_key = self.routed_experts_key

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "model_input": model_input,
                "loss_fn_inputs": loss_fn_inputs,
            }
        )
        if routed_experts_key is not UNSET:
            field_dict["routed_experts_key"] = routed_experts_key

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.loss_fn_inputs import LossFnInputs
        from ..models.model_input import ModelInput

        d = dict(src_dict)
        model_input = ModelInput.from_dict(d.pop("model_input"))

        loss_fn_inputs = LossFnInputs.from_dict(d.pop("loss_fn_inputs"))

        routed_experts_key = d.pop("routed_experts_key", UNSET)

        sample = cls(
            model_input=model_input,
            loss_fn_inputs=loss_fn_inputs,
            routed_experts_key=routed_experts_key,
        )

        return sample


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [
        "model_input",
        "loss_fn_inputs",
    ],
    "properties": {
        "model_input": {
            "class": "ModelInput",
        },
        "loss_fn_inputs": {
            "class": "LossFnInputs",
        },
        "routed_experts_key": {
            "minLength": 1,
        },
    },
}
