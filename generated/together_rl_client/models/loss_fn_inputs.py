from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.tensor_data import TensorData


T = TypeVar("T", bound="LossFnInputs")


@_attrs_define
class LossFnInputs:
    """Per-token loss tensors keyed by name. Every tensor is 1-D and exactly as long as the
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

    """

    additional_properties: dict[str, TensorData] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""

        field_dict: dict[str, Any] = {}
        for prop_name, prop in self.additional_properties.items():
            field_dict[prop_name] = prop.to_dict()

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.tensor_data import TensorData

        d = dict(src_dict)
        loss_fn_inputs = cls()

        additional_properties = {}
        for prop_name, prop_dict in d.items():
            additional_property = TensorData.from_dict(prop_dict)

            additional_properties[prop_name] = additional_property

        loss_fn_inputs.additional_properties = additional_properties
        return loss_fn_inputs

    @property
    def additional_keys(self) -> list[str]:
        """The names of the properties the spec does not declare."""
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> TensorData:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: TensorData) -> None:
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
    "x-exclusive-inputs": [["weights", "mask"]],
    "x-input-dtypes": {
        "advantages": ["float32"],
        "logprobs": ["float32"],
        "mask": ["int64", "float32"],
        "reference_logprobs": ["float32"],
        "target_tokens": ["int64"],
        "weights": ["float32", "int64"],
    },
    "x-tensor-length": "model_input",
    "required": [],
    "properties": {},
}
