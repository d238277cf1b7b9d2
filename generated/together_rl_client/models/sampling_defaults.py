from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SamplingDefaults")


@_attrs_define
class SamplingDefaults:
    """
    Attributes:
        logprobs (int):
        max_tokens (int):
        n (int):
        temperature (float):
    """

    logprobs: int
    max_tokens: int
    n: int
    temperature: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        logprobs = self.logprobs

        max_tokens = self.max_tokens

        n = self.n

        temperature = self.temperature

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "logprobs": logprobs,
                "max_tokens": max_tokens,
                "n": n,
                "temperature": temperature,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        logprobs = d.pop("logprobs")

        max_tokens = d.pop("max_tokens")

        n = d.pop("n")

        temperature = d.pop("temperature")

        sampling_defaults = cls(
            logprobs=logprobs,
            max_tokens=max_tokens,
            n=n,
            temperature=temperature,
        )

        sampling_defaults.additional_properties = d
        return sampling_defaults

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
        "logprobs",
        "max_tokens",
        "n",
        "temperature",
    ],
    "properties": {
        "logprobs": {},
        "max_tokens": {},
        "n": {},
        "temperature": {},
    },
}
