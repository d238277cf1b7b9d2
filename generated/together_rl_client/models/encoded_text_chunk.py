from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="EncodedTextChunk")


@_attrs_define
class EncodedTextChunk:
    """Pre-tokenized text input.

    Attributes:
        tokens (list[int]): Token ids. The official SDK sends JSON integers; decimal strings are accepted too.
    """

    tokens: list[int]

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        tokens = self.tokens

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "tokens": tokens,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        tokens = cast(list[int], d.pop("tokens"))

        encoded_text_chunk = cls(
            tokens=tokens,
        )

        return encoded_text_chunk


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [
        "tokens",
    ],
    "properties": {
        "tokens": {
            "minItems": 1,
        },
    },
}
