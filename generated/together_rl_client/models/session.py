from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.session_status import SessionStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.inference_checkpoint import InferenceCheckpoint
    from ..models.lora_config import LoraConfig
    from ..models.policy_state import PolicyState
    from ..models.session_error import SessionError
    from ..models.session_metadata import SessionMetadata
    from ..models.training_checkpoint import TrainingCheckpoint


T = TypeVar("T", bound="Session")


@_attrs_define
class Session:
    """
    Attributes:
        id (str):
        base_model (str):
        created_at (datetime.datetime):
        created_by (str):
        inference_checkpoints (list[InferenceCheckpoint]):
        training_checkpoints (list[TrainingCheckpoint]):
        metadata (SessionMetadata):
        model_resources_id (str):
        policy_state (PolicyState):
        status (SessionStatus):
        step (str): An int64 the server writes (a step, a weights version, a size): a decimal string
            (`"100"`), as gRPC-gateway emits int64, as the published reference's examples show and
            as the emulator answers. `type: string, format: int64` is how gRPC-gateway's own OpenAPI
            generator writes an int64, and generated clients decode it as a string (parse it to a
            64-bit integer). A JSON integer of the same value is valid too (`x-json-integer`), as
            the official SDK's types (`Union[str, int]`) read both.
        updated_at (datetime.datetime):
        display_name (str | Unset):
        error (SessionError | Unset):
        lora_config (LoraConfig | Unset):
        resume_from_checkpoint_id (str | Unset):
    """

    id: str
    base_model: str
    created_at: datetime.datetime
    created_by: str
    inference_checkpoints: list[InferenceCheckpoint]
    training_checkpoints: list[TrainingCheckpoint]
    metadata: SessionMetadata
    model_resources_id: str
    policy_state: PolicyState
    status: SessionStatus
    step: str
    updated_at: datetime.datetime
    display_name: str | Unset = UNSET
    error: SessionError | Unset = UNSET
    lora_config: LoraConfig | Unset = UNSET
    resume_from_checkpoint_id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        id = self.id

        base_model = self.base_model

        created_at = self.created_at.isoformat()

        created_by = self.created_by

        inference_checkpoints = []
        for inference_checkpoints_item_data in self.inference_checkpoints:
            inference_checkpoints_item = inference_checkpoints_item_data.to_dict()
            inference_checkpoints.append(inference_checkpoints_item)

        training_checkpoints = []
        for training_checkpoints_item_data in self.training_checkpoints:
            training_checkpoints_item = training_checkpoints_item_data.to_dict()
            training_checkpoints.append(training_checkpoints_item)

        metadata = self.metadata.to_dict()

        model_resources_id = self.model_resources_id

        policy_state = self.policy_state.to_dict()

        status = self.status.value

        step = self.step

        updated_at = self.updated_at.isoformat()

        display_name = self.display_name

        error: dict[str, Any] | Unset = UNSET
        if not isinstance(self.error, Unset):
            error = self.error.to_dict()

        lora_config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.lora_config, Unset):
            lora_config = self.lora_config.to_dict()

        resume_from_checkpoint_id = self.resume_from_checkpoint_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "base_model": base_model,
                "created_at": created_at,
                "created_by": created_by,
                "inference_checkpoints": inference_checkpoints,
                "training_checkpoints": training_checkpoints,
                "metadata": metadata,
                "model_resources_id": model_resources_id,
                "policy_state": policy_state,
                "status": status,
                "step": step,
                "updated_at": updated_at,
            }
        )
        if display_name is not UNSET:
            field_dict["display_name"] = display_name
        if error is not UNSET:
            field_dict["error"] = error
        if lora_config is not UNSET:
            field_dict["lora_config"] = lora_config
        if resume_from_checkpoint_id is not UNSET:
            field_dict["resume_from_checkpoint_id"] = resume_from_checkpoint_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.inference_checkpoint import InferenceCheckpoint
        from ..models.lora_config import LoraConfig
        from ..models.policy_state import PolicyState
        from ..models.session_error import SessionError
        from ..models.session_metadata import SessionMetadata
        from ..models.training_checkpoint import TrainingCheckpoint

        d = dict(src_dict)
        id = d.pop("id")

        base_model = d.pop("base_model")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        created_by = d.pop("created_by")

        inference_checkpoints = []
        _inference_checkpoints = d.pop("inference_checkpoints")
        for inference_checkpoints_item_data in _inference_checkpoints:
            inference_checkpoints_item = InferenceCheckpoint.from_dict(
                inference_checkpoints_item_data
            )

            inference_checkpoints.append(inference_checkpoints_item)

        training_checkpoints = []
        _training_checkpoints = d.pop("training_checkpoints")
        for training_checkpoints_item_data in _training_checkpoints:
            training_checkpoints_item = TrainingCheckpoint.from_dict(training_checkpoints_item_data)

            training_checkpoints.append(training_checkpoints_item)

        metadata = SessionMetadata.from_dict(d.pop("metadata"))

        model_resources_id = d.pop("model_resources_id")

        policy_state = PolicyState.from_dict(d.pop("policy_state"))

        status = SessionStatus(d.pop("status"))

        step = d.pop("step")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        display_name = d.pop("display_name", UNSET)

        _error = d.pop("error", UNSET)
        error: SessionError | Unset
        if isinstance(_error, Unset):
            error = UNSET
        else:
            error = SessionError.from_dict(_error)

        _lora_config = d.pop("lora_config", UNSET)
        lora_config: LoraConfig | Unset
        if isinstance(_lora_config, Unset):
            lora_config = UNSET
        else:
            lora_config = LoraConfig.from_dict(_lora_config)

        resume_from_checkpoint_id = d.pop("resume_from_checkpoint_id", UNSET)

        session = cls(
            id=id,
            base_model=base_model,
            created_at=created_at,
            created_by=created_by,
            inference_checkpoints=inference_checkpoints,
            training_checkpoints=training_checkpoints,
            metadata=metadata,
            model_resources_id=model_resources_id,
            policy_state=policy_state,
            status=status,
            step=step,
            updated_at=updated_at,
            display_name=display_name,
            error=error,
            lora_config=lora_config,
            resume_from_checkpoint_id=resume_from_checkpoint_id,
        )

        session.additional_properties = d
        return session

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
        "created_at",
        "created_by",
        "inference_checkpoints",
        "training_checkpoints",
        "metadata",
        "model_resources_id",
        "policy_state",
        "status",
        "step",
        "updated_at",
    ],
    "properties": {
        "id": {},
        "base_model": {},
        "created_at": {},
        "created_by": {},
        "inference_checkpoints": {},
        "training_checkpoints": {},
        "metadata": {
            "class": "SessionMetadata",
        },
        "model_resources_id": {},
        "policy_state": {
            "class": "PolicyState",
        },
        "status": {
            "class": "SessionStatus",
        },
        "step": {},
        "updated_at": {},
        "display_name": {},
        "error": {
            "class": "SessionError",
        },
        "lora_config": {
            "class": "LoraConfig",
        },
        "resume_from_checkpoint_id": {},
    },
}
