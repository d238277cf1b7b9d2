from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.adam_params import AdamParams
    from ..models.muon_params import MuonParams


T = TypeVar("T", bound="OptimStepBody")


@_attrs_define
class OptimStepBody:
    """
    Attributes:
        adam_params (AdamParams | Unset):
        muon_params (MuonParams | Unset): Muon settings of one optimizer step, for model resources created with
            `optimizer_config.muon`: Keller Jordan's Muon (Nesterov momentum, quintic Newton-Schulz
            orthogonalisation) on the 2-D parameters, AdamW with `adam` on the others, after one
            global-norm clip of every gradient by `grad_clip_norm` (docs/emulator.md, "Muon").
    """

    adam_params: AdamParams | Unset = UNSET
    muon_params: MuonParams | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        adam_params: dict[str, Any] | Unset = UNSET
        if not isinstance(self.adam_params, Unset):
            adam_params = self.adam_params.to_dict()

        muon_params: dict[str, Any] | Unset = UNSET
        if not isinstance(self.muon_params, Unset):
            muon_params = self.muon_params.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if adam_params is not UNSET:
            field_dict["adam_params"] = adam_params
        if muon_params is not UNSET:
            field_dict["muon_params"] = muon_params

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.adam_params import AdamParams
        from ..models.muon_params import MuonParams

        d = dict(src_dict)
        _adam_params = d.pop("adam_params", UNSET)
        adam_params: AdamParams | Unset
        if isinstance(_adam_params, Unset):
            adam_params = UNSET
        else:
            adam_params = AdamParams.from_dict(_adam_params)

        _muon_params = d.pop("muon_params", UNSET)
        muon_params: MuonParams | Unset
        if isinstance(_muon_params, Unset):
            muon_params = UNSET
        else:
            muon_params = MuonParams.from_dict(_muon_params)

        optim_step_body = cls(
            adam_params=adam_params,
            muon_params=muon_params,
        )

        return optim_step_body


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [],
    "properties": {
        "adam_params": {
            "class": "AdamParams",
        },
        "muon_params": {
            "class": "MuonParams",
        },
    },
}
