from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.optimizer_config_adam import OptimizerConfigAdam
    from ..models.optimizer_config_muon import OptimizerConfigMuon


T = TypeVar("T", bound="OptimizerConfig")


@_attrs_define
class OptimizerConfig:
    """
    Attributes:
        adam (OptimizerConfigAdam | Unset):
        muon (OptimizerConfigMuon | Unset): Muon: optim-steps take `muon_params`. `scaling_strategy` scales each 2-D
            update:
            `MUON_SCALING_STRATEGY_ORIGINAL` by sqrt(max(1, rows/cols)) (Keller Jordan's),
            `MUON_SCALING_STRATEGY_MATCH_ADAM` by 0.2 sqrt(max(rows, cols)) (Moonlight's, AdamW's
            RMS); unset or `MUON_SCALING_STRATEGY_UNSPECIFIED` means MATCH_ADAM, the default
            Together's OpenAPI document gives.
    """

    adam: OptimizerConfigAdam | Unset = UNSET
    muon: OptimizerConfigMuon | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        adam: dict[str, Any] | Unset = UNSET
        if not isinstance(self.adam, Unset):
            adam = self.adam.to_dict()

        muon: dict[str, Any] | Unset = UNSET
        if not isinstance(self.muon, Unset):
            muon = self.muon.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if adam is not UNSET:
            field_dict["adam"] = adam
        if muon is not UNSET:
            field_dict["muon"] = muon

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.optimizer_config_adam import OptimizerConfigAdam
        from ..models.optimizer_config_muon import OptimizerConfigMuon

        d = dict(src_dict)
        _adam = d.pop("adam", UNSET)
        adam: OptimizerConfigAdam | Unset
        if isinstance(_adam, Unset):
            adam = UNSET
        else:
            adam = OptimizerConfigAdam.from_dict(_adam)

        _muon = d.pop("muon", UNSET)
        muon: OptimizerConfigMuon | Unset
        if isinstance(_muon, Unset):
            muon = UNSET
        else:
            muon = OptimizerConfigMuon.from_dict(_muon)

        optimizer_config = cls(
            adam=adam,
            muon=muon,
        )

        return optimizer_config


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [],
    "properties": {
        "adam": {},
        "muon": {},
    },
}
