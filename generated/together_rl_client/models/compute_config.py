from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.compute_config_gpu_type import ComputeConfigGpuType
from ..types import UNSET, Unset

T = TypeVar("T", bound="ComputeConfig")


@_attrs_define
class ComputeConfig:
    """
    Attributes:
        num_generator_replicas (int):
        gpu_type (ComputeConfigGpuType | Unset): The GPU type provisioned (the SDK's response model also knows
            `H100-80GB`).
    """

    num_generator_replicas: int
    gpu_type: ComputeConfigGpuType | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        num_generator_replicas = self.num_generator_replicas

        gpu_type: str | Unset = UNSET
        if not isinstance(self.gpu_type, Unset):
            gpu_type = self.gpu_type.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "num_generator_replicas": num_generator_replicas,
            }
        )
        if gpu_type is not UNSET:
            field_dict["gpu_type"] = gpu_type

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        num_generator_replicas = d.pop("num_generator_replicas")

        _gpu_type = d.pop("gpu_type", UNSET)
        gpu_type: ComputeConfigGpuType | Unset
        if isinstance(_gpu_type, Unset):
            gpu_type = UNSET
        else:
            gpu_type = ComputeConfigGpuType(_gpu_type)

        compute_config = cls(
            num_generator_replicas=num_generator_replicas,
            gpu_type=gpu_type,
        )

        compute_config.additional_properties = d
        return compute_config

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
        "num_generator_replicas",
    ],
    "properties": {
        "num_generator_replicas": {},
        "gpu_type": {},
    },
}
