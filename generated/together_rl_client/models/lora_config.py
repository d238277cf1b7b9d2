from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="LoraConfig")


@_attrs_define
class LoraConfig:
    """
    Attributes:
        rank (int | Unset):
        alpha (int | Unset):
        dropout (float | Unset):
        seed (int | Unset): An int64 a client sends (a seed): the official SDK sends a plain JSON integer, so
            generators see a 64-bit integer. The SDK's types take both forms (`Union[str, int]`)
            and gRPC-gateway reads both, so a server also accepts the decimal string of the value
            (`x-decimal-string`: the pattern of that string form). An int64 the server writes is an
            `Int64String`.
        train_unembed (bool | Unset): Also train a LoRA adapter on the output head. Omitted: true.
    """

    rank: int | Unset = UNSET
    alpha: int | Unset = UNSET
    dropout: float | Unset = UNSET
    seed: int | Unset = UNSET
    train_unembed: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        rank = self.rank

        alpha = self.alpha

        dropout = self.dropout

        seed = self.seed

        train_unembed = self.train_unembed

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if rank is not UNSET:
            field_dict["rank"] = rank
        if alpha is not UNSET:
            field_dict["alpha"] = alpha
        if dropout is not UNSET:
            field_dict["dropout"] = dropout
        if seed is not UNSET:
            field_dict["seed"] = seed
        if train_unembed is not UNSET:
            field_dict["train_unembed"] = train_unembed

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        rank = d.pop("rank", UNSET)

        alpha = d.pop("alpha", UNSET)

        dropout = d.pop("dropout", UNSET)

        seed = d.pop("seed", UNSET)

        train_unembed = d.pop("train_unembed", UNSET)

        lora_config = cls(
            rank=rank,
            alpha=alpha,
            dropout=dropout,
            seed=seed,
            train_unembed=train_unembed,
        )

        return lora_config


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [],
    "properties": {
        "rank": {
            "minimum": 1.0,
        },
        "alpha": {
            "minimum": 1.0,
        },
        "dropout": {
            "minimum": 0.0,
            "maximum": 1.0,
        },
        "seed": {},
        "train_unembed": {
            "x-server-default": True,
        },
    },
}
