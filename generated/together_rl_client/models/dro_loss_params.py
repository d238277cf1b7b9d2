from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="DROLossParams")


@_attrs_define
class DROLossParams:
    """DRO parameters. The params object is required for `LOSS_TYPE_DRO` because `beta` has no default.

    Attributes:
        beta (float): Coefficient on the quadratic log-ratio penalty. Required; there is no default.
    """

    beta: float

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        beta = self.beta

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "beta": beta,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        beta = d.pop("beta")

        dro_loss_params = cls(
            beta=beta,
        )

        return dro_loss_params


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [
        "beta",
    ],
    "properties": {
        "beta": {
            "minimum": 0.0,
        },
    },
}
