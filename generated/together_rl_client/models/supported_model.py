from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.gpu_type import GpuType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.supported_compute_config import SupportedComputeConfig


T = TypeVar("T", bound="SupportedModel")


@_attrs_define
class SupportedModel:
    """
    Attributes:
        base_model (str):
        default_gpu_type (GpuType):
        compute_configs (list[SupportedComputeConfig] | Unset):
    """

    base_model: str
    default_gpu_type: GpuType
    compute_configs: list[SupportedComputeConfig] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        base_model = self.base_model

        default_gpu_type = self.default_gpu_type.value

        compute_configs: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.compute_configs, Unset):
            compute_configs = []
            for compute_configs_item_data in self.compute_configs:
                compute_configs_item = compute_configs_item_data.to_dict()
                compute_configs.append(compute_configs_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "base_model": base_model,
                "default_gpu_type": default_gpu_type,
            }
        )
        if compute_configs is not UNSET:
            field_dict["compute_configs"] = compute_configs

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.supported_compute_config import SupportedComputeConfig

        d = dict(src_dict)
        base_model = d.pop("base_model")

        default_gpu_type = GpuType(d.pop("default_gpu_type"))

        _compute_configs = d.pop("compute_configs", UNSET)
        compute_configs: list[SupportedComputeConfig] | Unset = UNSET
        if _compute_configs is not UNSET:
            compute_configs = []
            for compute_configs_item_data in _compute_configs:
                compute_configs_item = SupportedComputeConfig.from_dict(compute_configs_item_data)

                compute_configs.append(compute_configs_item)

        supported_model = cls(
            base_model=base_model,
            default_gpu_type=default_gpu_type,
            compute_configs=compute_configs,
        )

        supported_model.additional_properties = d
        return supported_model

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
        "base_model",
        "default_gpu_type",
    ],
    "properties": {
        "base_model": {},
        "default_gpu_type": {
            "class": "GpuType",
        },
        "compute_configs": {},
    },
}
