from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.encoded_text_chunk import EncodedTextChunk


T = TypeVar("T", bound="ModelInputChunk")


@_attrs_define
class ModelInputChunk:
    """One chunk of model input. `encoded_text` is the only chunk kind.

    Attributes:
        encoded_text (EncodedTextChunk): Pre-tokenized text input.
    """

    encoded_text: EncodedTextChunk

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        encoded_text = self.encoded_text.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "encoded_text": encoded_text,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.encoded_text_chunk import EncodedTextChunk

        d = dict(src_dict)
        encoded_text = EncodedTextChunk.from_dict(d.pop("encoded_text"))

        model_input_chunk = cls(
            encoded_text=encoded_text,
        )

        return model_input_chunk


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [
        "encoded_text",
    ],
    "properties": {
        "encoded_text": {
            "class": "EncodedTextChunk",
        },
    },
}
