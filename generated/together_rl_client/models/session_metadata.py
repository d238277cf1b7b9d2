from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.wandb_metadata import WandbMetadata


T = TypeVar("T", bound="SessionMetadata")


@_attrs_define
class SessionMetadata:
    """
    Attributes:
        wandb (WandbMetadata | Unset):
    """

    wandb: WandbMetadata | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        wandb: dict[str, Any] | Unset = UNSET
        if not isinstance(self.wandb, Unset):
            wandb = self.wandb.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if wandb is not UNSET:
            field_dict["wandb"] = wandb

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.wandb_metadata import WandbMetadata

        d = dict(src_dict)
        _wandb = d.pop("wandb", UNSET)
        wandb: WandbMetadata | Unset
        if isinstance(_wandb, Unset):
            wandb = UNSET
        else:
            wandb = WandbMetadata.from_dict(_wandb)

        session_metadata = cls(
            wandb=wandb,
        )

        return session_metadata


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [],
    "properties": {
        "wandb": {
            "class": "WandbMetadata",
        },
    },
}
