from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.adam_params import AdamParams


T = TypeVar("T", bound="MuonParams")


@_attrs_define
class MuonParams:
    """Muon settings of one optimizer step, for model resources created with
    `optimizer_config.muon`: Keller Jordan's Muon (Nesterov momentum, quintic Newton-Schulz
    orthogonalisation) on the 2-D parameters, AdamW with `adam` on the others, after one
    global-norm clip of every gradient by `grad_clip_norm` (docs/emulator.md, "Muon").

        Attributes:
            adam (AdamParams | Unset):
            grad_clip_norm (float | Unset): Global-norm clip over every parameter; 0 disables it. Default 1.0.
            learning_rate (float | Unset): Default 0.02 (the published example's value and Keller Jordan's default;
                Together's OpenAPI document gives none).
            momentum (float | Unset): Momentum coefficient (Nesterov). Default 0.95.
            newton_schulz_steps (int | Unset): Newton-Schulz iterations. Default 5.
            weight_decay (float | Unset): Decoupled weight decay of the 2-D parameters. Default 0.
    """

    adam: AdamParams | Unset = UNSET
    grad_clip_norm: float | Unset = UNSET
    learning_rate: float | Unset = UNSET
    momentum: float | Unset = UNSET
    newton_schulz_steps: int | Unset = UNSET
    weight_decay: float | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        adam: dict[str, Any] | Unset = UNSET
        if not isinstance(self.adam, Unset):
            adam = self.adam.to_dict()

        grad_clip_norm = self.grad_clip_norm

        learning_rate = self.learning_rate

        momentum = self.momentum

        newton_schulz_steps = self.newton_schulz_steps

        weight_decay = self.weight_decay

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if adam is not UNSET:
            field_dict["adam"] = adam
        if grad_clip_norm is not UNSET:
            field_dict["grad_clip_norm"] = grad_clip_norm
        if learning_rate is not UNSET:
            field_dict["learning_rate"] = learning_rate
        if momentum is not UNSET:
            field_dict["momentum"] = momentum
        if newton_schulz_steps is not UNSET:
            field_dict["newton_schulz_steps"] = newton_schulz_steps
        if weight_decay is not UNSET:
            field_dict["weight_decay"] = weight_decay

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.adam_params import AdamParams

        d = dict(src_dict)
        _adam = d.pop("adam", UNSET)
        adam: AdamParams | Unset
        if isinstance(_adam, Unset):
            adam = UNSET
        else:
            adam = AdamParams.from_dict(_adam)

        grad_clip_norm = d.pop("grad_clip_norm", UNSET)

        learning_rate = d.pop("learning_rate", UNSET)

        momentum = d.pop("momentum", UNSET)

        newton_schulz_steps = d.pop("newton_schulz_steps", UNSET)

        weight_decay = d.pop("weight_decay", UNSET)

        muon_params = cls(
            adam=adam,
            grad_clip_norm=grad_clip_norm,
            learning_rate=learning_rate,
            momentum=momentum,
            newton_schulz_steps=newton_schulz_steps,
            weight_decay=weight_decay,
        )

        return muon_params


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [],
    "properties": {
        "adam": {
            "class": "AdamParams",
        },
        "grad_clip_norm": {
            "minimum": 0.0,
            "x-server-default": 1.0,
        },
        "learning_rate": {
            "minimum": 0.0,
            "x-server-default": 0.02,
        },
        "momentum": {
            "minimum": 0.0,
            "exclusiveMaximum": 1.0,
            "x-server-default": 0.95,
        },
        "newton_schulz_steps": {
            "minimum": 1.0,
            "maximum": 100.0,
            "x-server-default": 5,
        },
        "weight_decay": {
            "minimum": 0.0,
            "x-server-default": 0.0,
        },
    },
}
