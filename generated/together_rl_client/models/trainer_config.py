from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.lora_trainer_limits import LoraTrainerLimits
    from ..models.trainer_limits import TrainerLimits


T = TypeVar("T", bound="TrainerConfig")


@_attrs_define
class TrainerConfig:
    """
    Attributes:
        full (TrainerLimits | Unset):
        lora (LoraTrainerLimits | Unset):
    """

    full: TrainerLimits | Unset = UNSET
    lora: LoraTrainerLimits | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        full: dict[str, Any] | Unset = UNSET
        if not isinstance(self.full, Unset):
            full = self.full.to_dict()

        lora: dict[str, Any] | Unset = UNSET
        if not isinstance(self.lora, Unset):
            lora = self.lora.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if full is not UNSET:
            field_dict["full"] = full
        if lora is not UNSET:
            field_dict["lora"] = lora

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.lora_trainer_limits import LoraTrainerLimits
        from ..models.trainer_limits import TrainerLimits

        d = dict(src_dict)
        _full = d.pop("full", UNSET)
        full: TrainerLimits | Unset
        if isinstance(_full, Unset):
            full = UNSET
        else:
            full = TrainerLimits.from_dict(_full)

        _lora = d.pop("lora", UNSET)
        lora: LoraTrainerLimits | Unset
        if isinstance(_lora, Unset):
            lora = UNSET
        else:
            lora = LoraTrainerLimits.from_dict(_lora)

        trainer_config = cls(
            full=full,
            lora=lora,
        )

        trainer_config.additional_properties = d
        return trainer_config

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
        "full": {
            "class": "TrainerLimits",
        },
        "lora": {
            "class": "LoraTrainerLimits",
        },
    },
}
