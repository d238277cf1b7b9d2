from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.compute_config_request_gpu_type import ComputeConfigRequestGpuType
from ..types import UNSET, Unset

T = TypeVar("T", bound="ComputeConfigRequest")


@_attrs_define
class ComputeConfigRequest:
    """The compute layout. Omitted (whole or in part), the server chooses: the model's default
    GPU type and one generator replica, so that resources created with the official SDK's
    defaults can sample.

        Attributes:
            gpu_type (ComputeConfigRequestGpuType | Unset):
            num_generator_replicas (int | Unset): Generator replicas for sampling; 0 for a trainer-only resource. Omitted: 1
                (the
                official SDK's Tinker layer creates resources without `compute_config` and samples
                from them, which needs a generator; Together's own OpenAPI document of 2026-08-17
                states the same default).
    """

    gpu_type: ComputeConfigRequestGpuType | Unset = UNSET
    num_generator_replicas: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        gpu_type: str | Unset = UNSET
        if not isinstance(self.gpu_type, Unset):
            gpu_type = self.gpu_type.value

        num_generator_replicas = self.num_generator_replicas

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if gpu_type is not UNSET:
            field_dict["gpu_type"] = gpu_type
        if num_generator_replicas is not UNSET:
            field_dict["num_generator_replicas"] = num_generator_replicas

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        _gpu_type = d.pop("gpu_type", UNSET)
        gpu_type: ComputeConfigRequestGpuType | Unset
        if isinstance(_gpu_type, Unset):
            gpu_type = UNSET
        else:
            gpu_type = ComputeConfigRequestGpuType(_gpu_type)

        num_generator_replicas = d.pop("num_generator_replicas", UNSET)

        compute_config_request = cls(
            gpu_type=gpu_type,
            num_generator_replicas=num_generator_replicas,
        )

        return compute_config_request


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [],
    "properties": {
        "gpu_type": {
            "x-server-default": "B200-SXM",
        },
        "num_generator_replicas": {
            "minimum": 0.0,
            "x-server-default": 1,
        },
    },
}
