from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.session_metadata import SessionMetadata


T = TypeVar("T", bound="SessionUpdate")


@_attrs_define
class SessionUpdate:
    """Fields to change. Omitted fields are left unchanged; an empty string clears a value.

    Attributes:
        display_name (str | Unset): The new display name; `""` removes it.
        metadata (SessionMetadata | Unset):
    """

    display_name: str | Unset = UNSET
    metadata: SessionMetadata | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        display_name = self.display_name

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if display_name is not UNSET:
            field_dict["display_name"] = display_name
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.session_metadata import SessionMetadata

        d = dict(src_dict)
        display_name = d.pop("display_name", UNSET)

        _metadata = d.pop("metadata", UNSET)
        metadata: SessionMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = SessionMetadata.from_dict(_metadata)

        session_update = cls(
            display_name=display_name,
            metadata=metadata,
        )

        return session_update


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [],
    "properties": {
        "display_name": {
            "maxLength": 128,
        },
        "metadata": {
            "class": "SessionMetadata",
        },
    },
}
