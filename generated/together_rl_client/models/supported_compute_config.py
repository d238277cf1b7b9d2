from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.gpu_type import GpuType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.generator_config import GeneratorConfig
    from ..models.trainer_config import TrainerConfig


T = TypeVar("T", bound="SupportedComputeConfig")


@_attrs_define
class SupportedComputeConfig:
    """
    Attributes:
        gpu_type (GpuType):
        generator_config (GeneratorConfig | Unset):
        trainer_config (TrainerConfig | Unset):
    """

    gpu_type: GpuType
    generator_config: GeneratorConfig | Unset = UNSET
    trainer_config: TrainerConfig | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        gpu_type = self.gpu_type.value

        generator_config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.generator_config, Unset):
            generator_config = self.generator_config.to_dict()

        trainer_config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.trainer_config, Unset):
            trainer_config = self.trainer_config.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "gpu_type": gpu_type,
            }
        )
        if generator_config is not UNSET:
            field_dict["generator_config"] = generator_config
        if trainer_config is not UNSET:
            field_dict["trainer_config"] = trainer_config

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.generator_config import GeneratorConfig
        from ..models.trainer_config import TrainerConfig

        d = dict(src_dict)
        gpu_type = GpuType(d.pop("gpu_type"))

        _generator_config = d.pop("generator_config", UNSET)
        generator_config: GeneratorConfig | Unset
        if isinstance(_generator_config, Unset):
            generator_config = UNSET
        else:
            generator_config = GeneratorConfig.from_dict(_generator_config)

        _trainer_config = d.pop("trainer_config", UNSET)
        trainer_config: TrainerConfig | Unset
        if isinstance(_trainer_config, Unset):
            trainer_config = UNSET
        else:
            trainer_config = TrainerConfig.from_dict(_trainer_config)

        supported_compute_config = cls(
            gpu_type=gpu_type,
            generator_config=generator_config,
            trainer_config=trainer_config,
        )

        supported_compute_config.additional_properties = d
        return supported_compute_config

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
        "gpu_type",
    ],
    "properties": {
        "gpu_type": {
            "class": "GpuType",
        },
        "generator_config": {
            "class": "GeneratorConfig",
        },
        "trainer_config": {
            "class": "TrainerConfig",
        },
    },
}
