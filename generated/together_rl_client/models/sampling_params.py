from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="SamplingParams")


@_attrs_define
class SamplingParams:
    """
    Attributes:
        max_tokens (int | Unset):
        seed (int | str | Unset): An int64. gRPC-gateway emits int64 as a decimal string (`"100"`); the official SDK
            sends
            plain integers. Both forms are accepted and either may be returned.
        stop (list[str] | Unset): Stop strings: generation stops when any of them is produced (the official SDK's
            words). A completion's decoded text is searched for them as it grows; the token that
            completes one is the completion's last. Token-id stops are not part of the API (the
            official SDK's Tinker layer drops them: "Together's sampling stop takes strings
            only"). An empty string is refused (it would end every completion at once).
        temperature (float | Unset):
        top_k (int | Unset): Keep only the k most likely tokens. Any value below 1 means no limit: -1 is Tinker's
            default (sent by the official SDK's Tinker layer), 0 is the proto default (unset).
        top_p (float | Unset):
    """

    max_tokens: int | Unset = UNSET
    seed: int | str | Unset = UNSET
    stop: list[str] | Unset = UNSET
    temperature: float | Unset = UNSET
    top_k: int | Unset = UNSET
    top_p: float | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        max_tokens = self.max_tokens

        seed: int | str | Unset
        if isinstance(self.seed, Unset):
            seed = UNSET
        else:
            seed = self.seed

        stop: list[str] | Unset = UNSET
        if not isinstance(self.stop, Unset):
            stop = self.stop

        temperature = self.temperature

        top_k = self.top_k

        top_p = self.top_p

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if max_tokens is not UNSET:
            field_dict["max_tokens"] = max_tokens
        if seed is not UNSET:
            field_dict["seed"] = seed
        if stop is not UNSET:
            field_dict["stop"] = stop
        if temperature is not UNSET:
            field_dict["temperature"] = temperature
        if top_k is not UNSET:
            field_dict["top_k"] = top_k
        if top_p is not UNSET:
            field_dict["top_p"] = top_p

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        max_tokens = d.pop("max_tokens", UNSET)

        def _parse_seed(data: object) -> int | str | Unset:
            if isinstance(data, Unset):
                return data
            return cast(int | str | Unset, data)

        seed = _parse_seed(d.pop("seed", UNSET))

        stop = cast(list[str], d.pop("stop", UNSET))

        temperature = d.pop("temperature", UNSET)

        top_k = d.pop("top_k", UNSET)

        top_p = d.pop("top_p", UNSET)

        sampling_params = cls(
            max_tokens=max_tokens,
            seed=seed,
            stop=stop,
            temperature=temperature,
            top_k=top_k,
            top_p=top_p,
        )

        return sampling_params


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [],
    "properties": {
        "max_tokens": {
            "minimum": 1.0,
        },
        "seed": {},
        "stop": {},
        "temperature": {
            "minimum": 0.0,
        },
        "top_k": {},
        "top_p": {
            "maximum": 1.0,
            "exclusiveMinimum": 0.0,
        },
    },
}
