from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.weight_sync_type import WeightSyncType

T = TypeVar("T", bound="WeightsSyncBody")


@_attrs_define
class WeightsSyncBody:
    """
    Attributes:
        weight_sync_type (WeightSyncType):
    """

    weight_sync_type: WeightSyncType

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        weight_sync_type = self.weight_sync_type.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "weight_sync_type": weight_sync_type,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        weight_sync_type = WeightSyncType(d.pop("weight_sync_type"))

        weights_sync_body = cls(
            weight_sync_type=weight_sync_type,
        )

        return weights_sync_body


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [
        "weight_sync_type",
    ],
    "properties": {
        "weight_sync_type": {
            "class": "WeightSyncType",
        },
    },
}
