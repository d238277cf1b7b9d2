from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.gradient import Gradient
    from ..models.sample import Sample


T = TypeVar("T", bound="CustomForwardBackwardBody")


@_attrs_define
class CustomForwardBackwardBody:
    """
    Attributes:
        samples (list[Sample]):
        gradients (list[Gradient]):
        payload_id (str | Unset): Set by the official SDK when it uploaded the full body (see `createPayloadUploadUrl`).
    """

    samples: list[Sample]
    gradients: list[Gradient]
    payload_id: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        samples = []
        for samples_item_data in self.samples:
            samples_item = samples_item_data.to_dict()
            samples.append(samples_item)

        gradients = []
        for gradients_item_data in self.gradients:
            gradients_item = gradients_item_data.to_dict()
            gradients.append(gradients_item)

        payload_id = self.payload_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "samples": samples,
                "gradients": gradients,
            }
        )
        if payload_id is not UNSET:
            field_dict["payload_id"] = payload_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.gradient import Gradient
        from ..models.sample import Sample

        d = dict(src_dict)
        samples = []
        _samples = d.pop("samples")
        for samples_item_data in _samples:
            samples_item = Sample.from_dict(samples_item_data)

            samples.append(samples_item)

        gradients = []
        _gradients = d.pop("gradients")
        for gradients_item_data in _gradients:
            gradients_item = Gradient.from_dict(gradients_item_data)

            gradients.append(gradients_item)

        payload_id = d.pop("payload_id", UNSET)

        custom_forward_backward_body = cls(
            samples=samples,
            gradients=gradients,
            payload_id=payload_id,
        )

        return custom_forward_backward_body


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [
        "samples",
        "gradients",
    ],
    "properties": {
        "samples": {
            "minItems": 1,
        },
        "gradients": {
            "minItems": 1,
        },
        "payload_id": {
            "minLength": 1,
        },
    },
}
