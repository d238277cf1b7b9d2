from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.sampling_defaults import SamplingDefaults


T = TypeVar("T", bound="GeneratorConfig")


@_attrs_define
class GeneratorConfig:
    """
    Attributes:
        context_length (int | Unset):
        sampling_defaults (SamplingDefaults | Unset):
    """

    context_length: int | Unset = UNSET
    sampling_defaults: SamplingDefaults | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        context_length = self.context_length

        sampling_defaults: dict[str, Any] | Unset = UNSET
        if not isinstance(self.sampling_defaults, Unset):
            sampling_defaults = self.sampling_defaults.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if context_length is not UNSET:
            field_dict["context_length"] = context_length
        if sampling_defaults is not UNSET:
            field_dict["sampling_defaults"] = sampling_defaults

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.sampling_defaults import SamplingDefaults

        d = dict(src_dict)
        context_length = d.pop("context_length", UNSET)

        _sampling_defaults = d.pop("sampling_defaults", UNSET)
        sampling_defaults: SamplingDefaults | Unset
        if isinstance(_sampling_defaults, Unset):
            sampling_defaults = UNSET
        else:
            sampling_defaults = SamplingDefaults.from_dict(_sampling_defaults)

        generator_config = cls(
            context_length=context_length,
            sampling_defaults=sampling_defaults,
        )

        generator_config.additional_properties = d
        return generator_config

    @property
    def additional_keys(self) -> list[str]:
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
#: property that names another schema).
SCHEMA: dict[str, Any] = {
    "required": [],
    "properties": {
        "context_length": {},
        "sampling_defaults": {
            "class": "SamplingDefaults",
        },
    },
}
