from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.grpo_loss_aggregation_type import GRPOLossAggregationType
from ..models.grpo_loss_ratio_type import GRPOLossRatioType
from ..types import UNSET, Unset

T = TypeVar("T", bound="GRPOLossParams")


@_attrs_define
class GRPOLossParams:
    """GRPO parameters. The user's documentation shows `clip_low_threshold: 0.8`,
    `clip_high_threshold: 1.2`, `beta: 0.1` as example values, not defaults. This project's
    defaults: 0.8, 1.28, 0.0, FIXED_HORIZON, TOKEN (the live server's clip defaults are unconfirmed).

        Attributes:
            clip_low_threshold (float | Unset): Lower absolute bound of the importance ratio (not an epsilon). Must be <= 1.
            clip_high_threshold (float | Unset): Upper absolute bound of the importance ratio. Must be >= 1.
            beta (float | Unset): KL penalty coefficient (k3 estimator against `reference_logprobs`, which become required
                when beta > 0). Default 0.
            agg_type (GRPOLossAggregationType | Unset): How GRPO aggregates per-token losses over the request (B samples,
                n_i masked-in tokens of
                sample i, T_max the longest sample): `FIXED_HORIZON` Σ/(B·T_max) (the default, also for
                `UNSPECIFIED`; the live denominator is unconfirmed), `TOKEN_MEAN` Σ/Σn_i,
                `SEQUENCE_MEAN` the mean over samples of each sample's token mean.
            ratio_type (GRPOLossRatioType | Unset): `TOKEN` (default): per-token ratios, standard GRPO. `SEQUENCE`: one
                geometric-mean ratio per
                sample (GSPO-style), used for every token of the sample.
    """

    clip_low_threshold: float | Unset = UNSET
    clip_high_threshold: float | Unset = UNSET
    beta: float | Unset = UNSET
    agg_type: GRPOLossAggregationType | Unset = UNSET
    ratio_type: GRPOLossRatioType | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        clip_low_threshold = self.clip_low_threshold

        clip_high_threshold = self.clip_high_threshold

        beta = self.beta

        agg_type: str | Unset = UNSET
        if not isinstance(self.agg_type, Unset):
            agg_type = self.agg_type.value

        ratio_type: str | Unset = UNSET
        if not isinstance(self.ratio_type, Unset):
            ratio_type = self.ratio_type.value

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if clip_low_threshold is not UNSET:
            field_dict["clip_low_threshold"] = clip_low_threshold
        if clip_high_threshold is not UNSET:
            field_dict["clip_high_threshold"] = clip_high_threshold
        if beta is not UNSET:
            field_dict["beta"] = beta
        if agg_type is not UNSET:
            field_dict["agg_type"] = agg_type
        if ratio_type is not UNSET:
            field_dict["ratio_type"] = ratio_type

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        clip_low_threshold = d.pop("clip_low_threshold", UNSET)

        clip_high_threshold = d.pop("clip_high_threshold", UNSET)

        beta = d.pop("beta", UNSET)

        _agg_type = d.pop("agg_type", UNSET)
        agg_type: GRPOLossAggregationType | Unset
        if isinstance(_agg_type, Unset):
            agg_type = UNSET
        else:
            agg_type = GRPOLossAggregationType(_agg_type)

        _ratio_type = d.pop("ratio_type", UNSET)
        ratio_type: GRPOLossRatioType | Unset
        if isinstance(_ratio_type, Unset):
            ratio_type = UNSET
        else:
            ratio_type = GRPOLossRatioType(_ratio_type)

        grpo_loss_params = cls(
            clip_low_threshold=clip_low_threshold,
            clip_high_threshold=clip_high_threshold,
            beta=beta,
            agg_type=agg_type,
            ratio_type=ratio_type,
        )

        return grpo_loss_params


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [],
    "properties": {
        "clip_low_threshold": {
            "minimum": 0.0,
            "maximum": 1.0,
            "x-server-default": 0.8,
        },
        "clip_high_threshold": {
            "minimum": 1.0,
            "x-server-default": 1.28,
        },
        "beta": {
            "minimum": 0.0,
            "x-requires-inputs-when-positive": ["reference_logprobs"],
            "x-server-default": 0.0,
        },
        "agg_type": {
            "class": "GRPOLossAggregationType",
        },
        "ratio_type": {
            "class": "GRPOLossRatioType",
        },
    },
}
