from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="AdamParams")


@_attrs_define
class AdamParams:
    """
    Attributes:
        learning_rate (float | Unset): Default 1e-4.
        beta1 (float | Unset): Default 0.9.
        beta2 (float | Unset): Default 0.95.
        eps (float | Unset): Default 1e-8.
        weight_decay (float | Unset): Decoupled (AdamW). Default 0.
        grad_clip_norm (float | Unset): Global-norm clip; 0 disables it; unset means the session default 1.0.
    """

    learning_rate: float | Unset = UNSET
    beta1: float | Unset = UNSET
    beta2: float | Unset = UNSET
    eps: float | Unset = UNSET
    weight_decay: float | Unset = UNSET
    grad_clip_norm: float | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        learning_rate = self.learning_rate

        beta1 = self.beta1

        beta2 = self.beta2

        eps = self.eps

        weight_decay = self.weight_decay

        grad_clip_norm = self.grad_clip_norm

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if learning_rate is not UNSET:
            field_dict["learning_rate"] = learning_rate
        if beta1 is not UNSET:
            field_dict["beta1"] = beta1
        if beta2 is not UNSET:
            field_dict["beta2"] = beta2
        if eps is not UNSET:
            field_dict["eps"] = eps
        if weight_decay is not UNSET:
            field_dict["weight_decay"] = weight_decay
        if grad_clip_norm is not UNSET:
            field_dict["grad_clip_norm"] = grad_clip_norm

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        learning_rate = d.pop("learning_rate", UNSET)

        beta1 = d.pop("beta1", UNSET)

        beta2 = d.pop("beta2", UNSET)

        eps = d.pop("eps", UNSET)

        weight_decay = d.pop("weight_decay", UNSET)

        grad_clip_norm = d.pop("grad_clip_norm", UNSET)

        adam_params = cls(
            learning_rate=learning_rate,
            beta1=beta1,
            beta2=beta2,
            eps=eps,
            weight_decay=weight_decay,
            grad_clip_norm=grad_clip_norm,
        )

        return adam_params


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [],
    "properties": {
        "learning_rate": {
            "minimum": 0.0,
            "x-server-default": 0.0001,
        },
        "beta1": {
            "minimum": 0.0,
            "exclusiveMaximum": 1.0,
            "x-server-default": 0.9,
        },
        "beta2": {
            "minimum": 0.0,
            "exclusiveMaximum": 1.0,
            "x-server-default": 0.95,
        },
        "eps": {
            "exclusiveMinimum": 0.0,
            "x-server-default": 1e-08,
        },
        "weight_decay": {
            "minimum": 0.0,
            "x-server-default": 0.0,
        },
        "grad_clip_norm": {
            "minimum": 0.0,
            "x-server-default": 1.0,
        },
    },
}
