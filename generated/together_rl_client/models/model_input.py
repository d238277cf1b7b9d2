from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.model_input_chunk import ModelInputChunk


T = TypeVar("T", bound="ModelInput")


@_attrs_define
class ModelInput:
    """The model input, as chunks concatenated in order.

    Attributes:
        chunks (list[ModelInputChunk]):
    """

    chunks: list[ModelInputChunk]

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        chunks = []
        for chunks_item_data in self.chunks:
            chunks_item = chunks_item_data.to_dict()
            chunks.append(chunks_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "chunks": chunks,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.model_input_chunk import ModelInputChunk

        d = dict(src_dict)
        chunks = []
        _chunks = d.pop("chunks")
        for chunks_item_data in _chunks:
            chunks_item = ModelInputChunk.from_dict(chunks_item_data)

            chunks.append(chunks_item)

        model_input = cls(
            chunks=chunks,
        )

        return model_input


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [
        "chunks",
    ],
    "properties": {
        "chunks": {
            "minItems": 1,
        },
    },
}
