from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CISPOLossParams")


@_attrs_define
class CISPOLossParams:
    """Bounds of the clipped, detached importance weight. This project's defaults 0.0 and 4.0
    (Tinker's one-sided default; unconfirmed for the live API); `clip_low_threshold` must not
    exceed `clip_high_threshold`. The user's documentation shows only `clip_high_threshold: 4`.

        Attributes:
            clip_low_threshold (float | Unset): Lower bound for clipping the importance-sampling ratio.
            clip_high_threshold (float | Unset): Upper bound for clipping the importance-sampling ratio.
    """

    clip_low_threshold: float | Unset = UNSET
    clip_high_threshold: float | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        clip_low_threshold = self.clip_low_threshold

        clip_high_threshold = self.clip_high_threshold

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if clip_low_threshold is not UNSET:
            field_dict["clip_low_threshold"] = clip_low_threshold
        if clip_high_threshold is not UNSET:
            field_dict["clip_high_threshold"] = clip_high_threshold

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        clip_low_threshold = d.pop("clip_low_threshold", UNSET)

        clip_high_threshold = d.pop("clip_high_threshold", UNSET)

        cispo_loss_params = cls(
            clip_low_threshold=clip_low_threshold,
            clip_high_threshold=clip_high_threshold,
        )

        return cispo_loss_params


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [],
    "properties": {
        "clip_low_threshold": {
            "minimum": 0.0,
            "x-server-default": 0.0,
        },
        "clip_high_threshold": {
            "minimum": 0.0,
            "x-server-default": 4.0,
        },
    },
}
