from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.model_resources_status import ModelResourcesStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.compute_config import ComputeConfig
    from ..models.model_resources_error import ModelResourcesError
    from ..models.optimizer_config import OptimizerConfig
    from ..models.status_details import StatusDetails


T = TypeVar("T", bound="ModelResources")


@_attrs_define
class ModelResources:
    """
    Attributes:
        id (str):
        base_model (str):
        compute_config (ComputeConfig):
        created_at (datetime.datetime):
        created_by (str):
        inactive_timeout (int):
        lora_enabled (bool):
        optimizer_config (OptimizerConfig):
        status (ModelResourcesStatus):
        status_details (StatusDetails):
        updated_at (datetime.datetime):
        base_weights_ref (str | Unset):
        error (ModelResourcesError | Unset):
        expires_at (datetime.datetime | Unset): When the resources stop for inactivity unless an operation or `extend-
            expiry` moves
            it; then the status becomes `MODEL_RESOURCES_STATUS_STOPPED` and every running session
            `TRAINING_SESSION_STATUS_EXPIRED`.
    """

    id: str
    base_model: str
    compute_config: ComputeConfig
    created_at: datetime.datetime
    created_by: str
    inactive_timeout: int
    lora_enabled: bool
    optimizer_config: OptimizerConfig
    status: ModelResourcesStatus
    status_details: StatusDetails
    updated_at: datetime.datetime
    base_weights_ref: str | Unset = UNSET
    error: ModelResourcesError | Unset = UNSET
    expires_at: datetime.datetime | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        id = self.id

        base_model = self.base_model

        compute_config = self.compute_config.to_dict()

        created_at = self.created_at.isoformat()

        created_by = self.created_by

        inactive_timeout = self.inactive_timeout

        lora_enabled = self.lora_enabled

        optimizer_config = self.optimizer_config.to_dict()

        status = self.status.value

        status_details = self.status_details.to_dict()

        updated_at = self.updated_at.isoformat()

        base_weights_ref = self.base_weights_ref

        error: dict[str, Any] | Unset = UNSET
        if not isinstance(self.error, Unset):
            error = self.error.to_dict()

        expires_at: str | Unset = UNSET
        if not isinstance(self.expires_at, Unset):
            expires_at = self.expires_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "base_model": base_model,
                "compute_config": compute_config,
                "created_at": created_at,
                "created_by": created_by,
                "inactive_timeout": inactive_timeout,
                "lora_enabled": lora_enabled,
                "optimizer_config": optimizer_config,
                "status": status,
                "status_details": status_details,
                "updated_at": updated_at,
            }
        )
        if base_weights_ref is not UNSET:
            field_dict["base_weights_ref"] = base_weights_ref
        if error is not UNSET:
            field_dict["error"] = error
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.compute_config import ComputeConfig
        from ..models.model_resources_error import ModelResourcesError
        from ..models.optimizer_config import OptimizerConfig
        from ..models.status_details import StatusDetails

        d = dict(src_dict)
        id = d.pop("id")

        base_model = d.pop("base_model")

        compute_config = ComputeConfig.from_dict(d.pop("compute_config"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        created_by = d.pop("created_by")

        inactive_timeout = d.pop("inactive_timeout")

        lora_enabled = d.pop("lora_enabled")

        optimizer_config = OptimizerConfig.from_dict(d.pop("optimizer_config"))

        status = ModelResourcesStatus(d.pop("status"))

        status_details = StatusDetails.from_dict(d.pop("status_details"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        base_weights_ref = d.pop("base_weights_ref", UNSET)

        _error = d.pop("error", UNSET)
        error: ModelResourcesError | Unset
        if isinstance(_error, Unset):
            error = UNSET
        else:
            error = ModelResourcesError.from_dict(_error)

        _expires_at = d.pop("expires_at", UNSET)
        expires_at: datetime.datetime | Unset
        if isinstance(_expires_at, Unset):
            expires_at = UNSET
        else:
            expires_at = datetime.datetime.fromisoformat(_expires_at)

        model_resources = cls(
            id=id,
            base_model=base_model,
            compute_config=compute_config,
            created_at=created_at,
            created_by=created_by,
            inactive_timeout=inactive_timeout,
            lora_enabled=lora_enabled,
            optimizer_config=optimizer_config,
            status=status,
            status_details=status_details,
            updated_at=updated_at,
            base_weights_ref=base_weights_ref,
            error=error,
            expires_at=expires_at,
        )

        model_resources.additional_properties = d
        return model_resources

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
        "id",
        "base_model",
        "compute_config",
        "created_at",
        "created_by",
        "inactive_timeout",
        "lora_enabled",
        "optimizer_config",
        "status",
        "status_details",
        "updated_at",
    ],
    "properties": {
        "id": {},
        "base_model": {},
        "compute_config": {
            "class": "ComputeConfig",
        },
        "created_at": {},
        "created_by": {},
        "inactive_timeout": {},
        "lora_enabled": {},
        "optimizer_config": {
            "class": "OptimizerConfig",
        },
        "status": {
            "class": "ModelResourcesStatus",
        },
        "status_details": {
            "class": "StatusDetails",
        },
        "updated_at": {},
        "base_weights_ref": {},
        "error": {
            "class": "ModelResourcesError",
        },
        "expires_at": {},
    },
}
