from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.checkpoint_registration import CheckpointRegistration


T = TypeVar("T", bound="InferenceCheckpointRegistration")


@_attrs_define
class InferenceCheckpointRegistration:
    """
    Attributes:
        adapter (CheckpointRegistration | Unset):
        model (CheckpointRegistration | Unset):
    """

    adapter: CheckpointRegistration | Unset = UNSET
    model: CheckpointRegistration | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        adapter: dict[str, Any] | Unset = UNSET
        if not isinstance(self.adapter, Unset):
            adapter = self.adapter.to_dict()

        model: dict[str, Any] | Unset = UNSET
        if not isinstance(self.model, Unset):
            model = self.model.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if adapter is not UNSET:
            field_dict["adapter"] = adapter
        if model is not UNSET:
            field_dict["model"] = model

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.checkpoint_registration import CheckpointRegistration

        d = dict(src_dict)
        _adapter = d.pop("adapter", UNSET)
        adapter: CheckpointRegistration | Unset
        if isinstance(_adapter, Unset):
            adapter = UNSET
        else:
            adapter = CheckpointRegistration.from_dict(_adapter)

        _model = d.pop("model", UNSET)
        model: CheckpointRegistration | Unset
        if isinstance(_model, Unset):
            model = UNSET
        else:
            model = CheckpointRegistration.from_dict(_model)

        inference_checkpoint_registration = cls(
            adapter=adapter,
            model=model,
        )

        inference_checkpoint_registration.additional_properties = d
        return inference_checkpoint_registration

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
    "required": [],
    "properties": {
        "adapter": {
            "class": "CheckpointRegistration",
        },
        "model": {
            "class": "CheckpointRegistration",
        },
    },
}
