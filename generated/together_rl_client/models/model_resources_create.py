from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.compute_config_request import ComputeConfigRequest
    from ..models.optimizer_config import OptimizerConfig


T = TypeVar("T", bound="ModelResourcesCreate")


@_attrs_define
class ModelResourcesCreate:
    """
    Attributes:
        base_model (str): A base model of `GET /rl/supported-models`.
        base_weights_ref (str | Unset): A full-weight model of this project's model registry whose weights the resources
            train instead of the base model's own (`together://ml_<model>`, optionally
            `@rv_<revision>`).
        compute_config (ComputeConfigRequest | Unset): The compute layout. Omitted (whole or in part), the server
            chooses: the model's default
            GPU type and one generator replica, so that resources created with the official SDK's
            defaults can sample.
        inactive_timeout (int | Unset): Seconds (300-86400) without activity after which the resources stop and their
            sessions expire, counted from when they become ready and from their last activity.
            Every operation on any of their sessions restarts the count; `extend-expiry` can keep
            them up longer. Omitted: 3600.
        lora_enabled (bool | Unset): True hosts LoRA sessions, false one full-weight session. Omitted: true (the
            reference's default; the SDK's `ModelResourcesClient.create` sends true unless told).
             Default: True.
        optimizer_config (OptimizerConfig | Unset):
    """

    base_model: str
    base_weights_ref: str | Unset = UNSET
    compute_config: ComputeConfigRequest | Unset = UNSET
    inactive_timeout: int | Unset = UNSET
    lora_enabled: bool | Unset = True
    optimizer_config: OptimizerConfig | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        base_model = self.base_model

        base_weights_ref = self.base_weights_ref

        compute_config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.compute_config, Unset):
            compute_config = self.compute_config.to_dict()

        inactive_timeout = self.inactive_timeout

        lora_enabled = self.lora_enabled

        optimizer_config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.optimizer_config, Unset):
            optimizer_config = self.optimizer_config.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "base_model": base_model,
            }
        )
        if base_weights_ref is not UNSET:
            field_dict["base_weights_ref"] = base_weights_ref
        if compute_config is not UNSET:
            field_dict["compute_config"] = compute_config
        if inactive_timeout is not UNSET:
            field_dict["inactive_timeout"] = inactive_timeout
        if lora_enabled is not UNSET:
            field_dict["lora_enabled"] = lora_enabled
        if optimizer_config is not UNSET:
            field_dict["optimizer_config"] = optimizer_config

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.compute_config_request import ComputeConfigRequest
        from ..models.optimizer_config import OptimizerConfig

        d = dict(src_dict)
        base_model = d.pop("base_model")

        base_weights_ref = d.pop("base_weights_ref", UNSET)

        _compute_config = d.pop("compute_config", UNSET)
        compute_config: ComputeConfigRequest | Unset
        if isinstance(_compute_config, Unset):
            compute_config = UNSET
        else:
            compute_config = ComputeConfigRequest.from_dict(_compute_config)

        inactive_timeout = d.pop("inactive_timeout", UNSET)

        lora_enabled = d.pop("lora_enabled", UNSET)

        _optimizer_config = d.pop("optimizer_config", UNSET)
        optimizer_config: OptimizerConfig | Unset
        if isinstance(_optimizer_config, Unset):
            optimizer_config = UNSET
        else:
            optimizer_config = OptimizerConfig.from_dict(_optimizer_config)

        model_resources_create = cls(
            base_model=base_model,
            base_weights_ref=base_weights_ref,
            compute_config=compute_config,
            inactive_timeout=inactive_timeout,
            lora_enabled=lora_enabled,
            optimizer_config=optimizer_config,
        )

        return model_resources_create


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [
        "base_model",
    ],
    "properties": {
        "base_model": {
            "minLength": 1,
        },
        "base_weights_ref": {
            "maxLength": 256,
        },
        "compute_config": {
            "class": "ComputeConfigRequest",
        },
        "inactive_timeout": {
            "minimum": 300.0,
            "maximum": 86400.0,
            "x-server-default": 3600,
        },
        "lora_enabled": {
            "default": True,
        },
        "optimizer_config": {
            "class": "OptimizerConfig",
        },
    },
}
