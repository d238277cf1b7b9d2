from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.muon_scaling_strategy import MuonScalingStrategy
from ..types import UNSET, Unset

T = TypeVar("T", bound="OptimizerConfigMuon")


@_attrs_define
class OptimizerConfigMuon:
    """Muon: optim-steps take `muon_params`. `scaling_strategy` scales each 2-D update:
    `MUON_SCALING_STRATEGY_ORIGINAL` by sqrt(max(1, rows/cols)) (Keller Jordan's),
    `MUON_SCALING_STRATEGY_MATCH_ADAM` by 0.2 sqrt(max(rows, cols)) (Moonlight's, AdamW's
    RMS); unset or `MUON_SCALING_STRATEGY_UNSPECIFIED` means MATCH_ADAM, the default
    Together's OpenAPI document gives.

        Attributes:
            scaling_strategy (MuonScalingStrategy | Unset):
    """

    scaling_strategy: MuonScalingStrategy | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        scaling_strategy: str | Unset = UNSET
        if not isinstance(self.scaling_strategy, Unset):
            scaling_strategy = self.scaling_strategy.value

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if scaling_strategy is not UNSET:
            field_dict["scaling_strategy"] = scaling_strategy

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        _scaling_strategy = d.pop("scaling_strategy", UNSET)
        scaling_strategy: MuonScalingStrategy | Unset
        if isinstance(_scaling_strategy, Unset):
            scaling_strategy = UNSET
        else:
            scaling_strategy = MuonScalingStrategy(_scaling_strategy)

        optimizer_config_muon = cls(
            scaling_strategy=scaling_strategy,
        )

        return optimizer_config_muon


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [],
    "properties": {
        "scaling_strategy": {
            "class": "MuonScalingStrategy",
        },
    },
}
