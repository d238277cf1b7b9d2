from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.checkpoint_type import CheckpointType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.checkpoint_registration import CheckpointRegistration
    from ..models.inference_registration import InferenceRegistration


T = TypeVar("T", bound="Checkpoint")


@_attrs_define
class Checkpoint:
    """A saved checkpoint, as `GET /rl/checkpoints` lists it.

    Attributes:
        id (str):
        base_model (str): Base model the checkpoint was trained from.
        created_at (datetime.datetime):
        session_id (str): Training session that produced the checkpoint.
        step (str): An int64 the server writes (a step, a weights version, a size): a decimal string
            (`"100"`), as gRPC-gateway emits int64, as the published reference's examples show and
            as the emulator answers. `type: string, format: int64` is how gRPC-gateway's own OpenAPI
            generator writes an int64, and generated clients decode it as a string (parse it to a
            64-bit integer). A JSON integer of the same value is valid too (`x-json-integer`), as
            the official SDK's types (`Union[str, int]`) read both.
        type_ (CheckpointType): `CHECKPOINT_TYPE_TRAINING`: the full training state (weights, optimizer state, step),
            for
            resuming a session. `CHECKPOINT_TYPE_INFERENCE`: a model ready for serving or download.
        inference_registration (InferenceRegistration | Unset): Model registry artifacts of an inference checkpoint.
        lora_rank (int | Unset): LoRA rank of the session that produced it; absent for full-weight sessions.
        training_registration (CheckpointRegistration | Unset):
    """

    id: str
    base_model: str
    created_at: datetime.datetime
    session_id: str
    step: str
    type_: CheckpointType
    inference_registration: InferenceRegistration | Unset = UNSET
    lora_rank: int | Unset = UNSET
    training_registration: CheckpointRegistration | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        id = self.id

        base_model = self.base_model

        created_at = self.created_at.isoformat()

        session_id = self.session_id

        step = self.step

        type_ = self.type_.value

        inference_registration: dict[str, Any] | Unset = UNSET
        if not isinstance(self.inference_registration, Unset):
            inference_registration = self.inference_registration.to_dict()

        lora_rank = self.lora_rank

        training_registration: dict[str, Any] | Unset = UNSET
        if not isinstance(self.training_registration, Unset):
            training_registration = self.training_registration.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "base_model": base_model,
                "created_at": created_at,
                "session_id": session_id,
                "step": step,
                "type": type_,
            }
        )
        if inference_registration is not UNSET:
            field_dict["inference_registration"] = inference_registration
        if lora_rank is not UNSET:
            field_dict["lora_rank"] = lora_rank
        if training_registration is not UNSET:
            field_dict["training_registration"] = training_registration

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.checkpoint_registration import CheckpointRegistration
        from ..models.inference_registration import InferenceRegistration

        d = dict(src_dict)
        id = d.pop("id")

        base_model = d.pop("base_model")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        session_id = d.pop("session_id")

        step = d.pop("step")

        type_ = CheckpointType(d.pop("type"))

        _inference_registration = d.pop("inference_registration", UNSET)
        inference_registration: InferenceRegistration | Unset
        if isinstance(_inference_registration, Unset):
            inference_registration = UNSET
        else:
            inference_registration = InferenceRegistration.from_dict(_inference_registration)

        lora_rank = d.pop("lora_rank", UNSET)

        _training_registration = d.pop("training_registration", UNSET)
        training_registration: CheckpointRegistration | Unset
        if isinstance(_training_registration, Unset):
            training_registration = UNSET
        else:
            training_registration = CheckpointRegistration.from_dict(_training_registration)

        checkpoint = cls(
            id=id,
            base_model=base_model,
            created_at=created_at,
            session_id=session_id,
            step=step,
            type_=type_,
            inference_registration=inference_registration,
            lora_rank=lora_rank,
            training_registration=training_registration,
        )

        checkpoint.additional_properties = d
        return checkpoint

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
        "session_id",
        "step",
        "type",
    ],
    "properties": {
        "id": {},
        "base_model": {},
        "created_at": {},
        "session_id": {},
        "step": {},
        "type": {
            "class": "CheckpointType",
        },
        "inference_registration": {
            "class": "InferenceRegistration",
        },
        "lora_rank": {},
        "training_registration": {
            "class": "CheckpointRegistration",
        },
    },
}
