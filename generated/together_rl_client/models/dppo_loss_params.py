from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="DPPOLossParams")


@_attrs_define
class DPPOLossParams:
    """Probability-change limits, measured in probability space (not log-probability space).

    Attributes:
        delta_low (float | Unset): Limit for tokens with negative advantage. In [0, 1]. Omitted: 0.15.
        delta_high (float | Unset): Limit for tokens with positive advantage. In [0, 1]. Omitted: 0.15.
    """

    delta_low: float | Unset = UNSET
    delta_high: float | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        delta_low = self.delta_low

        delta_high = self.delta_high

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if delta_low is not UNSET:
            field_dict["delta_low"] = delta_low
        if delta_high is not UNSET:
            field_dict["delta_high"] = delta_high

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        delta_low = d.pop("delta_low", UNSET)

        delta_high = d.pop("delta_high", UNSET)

        dppo_loss_params = cls(
            delta_low=delta_low,
            delta_high=delta_high,
        )

        return dppo_loss_params


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [],
    "properties": {
        "delta_low": {
            "minimum": 0.0,
            "maximum": 1.0,
            "x-server-default": 0.15,
        },
        "delta_high": {
            "minimum": 0.0,
            "maximum": 1.0,
            "x-server-default": 0.15,
        },
    },
}
