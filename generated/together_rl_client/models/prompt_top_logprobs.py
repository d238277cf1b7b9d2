from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PromptTopLogprobs")


@_attrs_define
class PromptTopLogprobs:
    """
    Attributes:
        logprobs (list[float] | Unset):
        token_ids (list[int] | Unset):
    """

    logprobs: list[float] | Unset = UNSET
    token_ids: list[int] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        logprobs: list[float] | Unset = UNSET
        if not isinstance(self.logprobs, Unset):
            logprobs = self.logprobs

        token_ids: list[int] | Unset = UNSET
        if not isinstance(self.token_ids, Unset):
            token_ids = self.token_ids

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs
        if token_ids is not UNSET:
            field_dict["token_ids"] = token_ids

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        logprobs = cast(list[float], d.pop("logprobs", UNSET))

        token_ids = cast(list[int], d.pop("token_ids", UNSET))

        prompt_top_logprobs = cls(
            logprobs=logprobs,
            token_ids=token_ids,
        )

        prompt_top_logprobs.additional_properties = d
        return prompt_top_logprobs

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
    "required": [],
    "properties": {
        "logprobs": {},
        "token_ids": {},
    },
}
