from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.lora_config import LoraConfig
    from ..models.session_metadata import SessionMetadata


T = TypeVar("T", bound="SessionCreate")


@_attrs_define
class SessionCreate:
    """
    Attributes:
        model_resources_id (str): Model resources to run the session on (`POST /rl/model-resources`).
        display_name (str | Unset):
        load_optimizer (bool | Unset): With `resume_from_checkpoint_id`: omitted or true restores the optimizer state
            and the
            step of a training checkpoint; false loads the weights only, at step 0. True is refused
            (400) for an inference checkpoint, which holds no optimizer state.
        lora_config (LoraConfig | Unset):
        metadata (SessionMetadata | Unset):
        resume_from_checkpoint_id (str | Unset): A checkpoint (`GET /rl/checkpoints`) of the same base model to start
            from; see
            `load_optimizer`. Unknown or another key's checkpoints are refused with 404.
    """

    model_resources_id: str
    display_name: str | Unset = UNSET
    load_optimizer: bool | Unset = UNSET
    lora_config: LoraConfig | Unset = UNSET
    metadata: SessionMetadata | Unset = UNSET
    resume_from_checkpoint_id: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        model_resources_id = self.model_resources_id

        display_name = self.display_name

        load_optimizer = self.load_optimizer

        lora_config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.lora_config, Unset):
            lora_config = self.lora_config.to_dict()

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        resume_from_checkpoint_id = self.resume_from_checkpoint_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "model_resources_id": model_resources_id,
            }
        )
        if display_name is not UNSET:
            field_dict["display_name"] = display_name
        if load_optimizer is not UNSET:
            field_dict["load_optimizer"] = load_optimizer
        if lora_config is not UNSET:
            field_dict["lora_config"] = lora_config
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if resume_from_checkpoint_id is not UNSET:
            field_dict["resume_from_checkpoint_id"] = resume_from_checkpoint_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.lora_config import LoraConfig
        from ..models.session_metadata import SessionMetadata

        d = dict(src_dict)
        model_resources_id = d.pop("model_resources_id")

        display_name = d.pop("display_name", UNSET)

        load_optimizer = d.pop("load_optimizer", UNSET)

        _lora_config = d.pop("lora_config", UNSET)
        lora_config: LoraConfig | Unset
        if isinstance(_lora_config, Unset):
            lora_config = UNSET
        else:
            lora_config = LoraConfig.from_dict(_lora_config)

        _metadata = d.pop("metadata", UNSET)
        metadata: SessionMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = SessionMetadata.from_dict(_metadata)

        resume_from_checkpoint_id = d.pop("resume_from_checkpoint_id", UNSET)

        session_create = cls(
            model_resources_id=model_resources_id,
            display_name=display_name,
            load_optimizer=load_optimizer,
            lora_config=lora_config,
            metadata=metadata,
            resume_from_checkpoint_id=resume_from_checkpoint_id,
        )

        return session_create


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [
        "model_resources_id",
    ],
    "properties": {
        "model_resources_id": {
            "minLength": 1,
        },
        "display_name": {
            "maxLength": 128,
        },
        "load_optimizer": {
            "x-server-default": True,
        },
        "lora_config": {
            "class": "LoraConfig",
        },
        "metadata": {
            "class": "SessionMetadata",
        },
        "resume_from_checkpoint_id": {
            "minLength": 1,
        },
    },
}
