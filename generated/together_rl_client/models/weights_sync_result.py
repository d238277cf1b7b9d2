from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="WeightsSyncResult")


@_attrs_define
class WeightsSyncResult:
    """
    Attributes:
        weights_version (str): An int64 the server writes (a step, a weights version, a size): a decimal string
            (`"100"`), as gRPC-gateway emits int64, as the published reference's examples show and
            as the emulator answers. `type: string, format: int64` is how gRPC-gateway's own OpenAPI
            generator writes an int64, and generated clients decode it as a string (parse it to a
            64-bit integer). A JSON integer of the same value is valid too (`x-json-integer`), as
            the official SDK's types (`Union[str, int]`) read both.
    """

    weights_version: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        weights_version = self.weights_version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "weights_version": weights_version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        weights_version = d.pop("weights_version")

        weights_sync_result = cls(
            weights_version=weights_version,
        )

        weights_sync_result.additional_properties = d
        return weights_sync_result

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
        "weights_version",
    ],
    "properties": {
        "weights_version": {},
    },
}
