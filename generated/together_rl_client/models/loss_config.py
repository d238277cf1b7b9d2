from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.loss_type import LossType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.cispo_loss_params import CISPOLossParams
    from ..models.cross_entropy_loss_params import CrossEntropyLossParams
    from ..models.dppo_loss_params import DPPOLossParams
    from ..models.dro_loss_params import DROLossParams
    from ..models.grpo_loss_params import GRPOLossParams
    from ..models.ppo_loss_params import PPOLossParams


T = TypeVar("T", bound="LossConfig")


@_attrs_define
class LossConfig:
    """The loss function and its parameters. Only the params object that matches `type` is
    read; a params object of another loss is accepted and ignored (the official SDK refuses
    to send one because "the server would otherwise drop it silently",
    `together==3.1.1 together/post_training/_request_types.py LossConfig`; the user's
    documentation shows five params objects at once). `LOSS_TYPE_IMPORTANCE_SAMPLING` has none
    and `LOSS_TYPE_DRO` requires `dro_params`.

        Attributes:
            type_ (LossType): The loss function. Required inputs per type (all need `target_tokens`), and the definition
                this project uses (per-token ℓ = current log-prob, q = `logprobs`, A = `advantages`,
                r = exp(ℓ − q); m = 1 where the weight/mask is non-zero; the live API's normalisation is
                unconfirmed, see docs/emulator.md):

                - `LOSS_TYPE_CROSS_ENTROPY`: needs `weights`. L = −Σ w·ℓ (fractional weights honoured).
                - `LOSS_TYPE_GRPO`: needs `logprobs`, `advantages` (+ `reference_logprobs` when beta > 0).
                  Per token −min(r̃A, clip(r̃, lo, hi)A) + beta·k3-KL to the reference, aggregated by `agg_type`.
                - `LOSS_TYPE_IMPORTANCE_SAMPLING`: needs `logprobs`, `advantages`. L = −Σ m·r·A.
                - `LOSS_TYPE_PPO`: needs `logprobs`, `advantages`. L = −Σ m·min(rA, clip(r, lo, hi)A).
                - `LOSS_TYPE_CISPO`: needs `logprobs`, `advantages`. L = −Σ m·sg(clip(r, lo, hi))·ℓ·A.
                - `LOSS_TYPE_DRO`: needs `logprobs`, `advantages`. L = Σ m·(−ℓA + ½·beta·(ℓ − q)²).
                - `LOSS_TYPE_DPPO`: needs `logprobs`, `advantages`. L = −Σ m·r·A·valid, where a token is
                  invalid when its probability moved more than `delta_high` (A > 0) or `delta_low` (A < 0).

                `LOSS_TYPE_UNSPECIFIED` is the proto zero value and is refused. The user's documentation
                omits `type` from its example; the SDK requires it. `LossConfig`'s `x-required-inputs`
                states the required `loss_fn_inputs` keys per type.
            cross_entropy_params (CrossEntropyLossParams | Unset): Currently empty.
            grpo_params (GRPOLossParams | Unset): GRPO parameters. The user's documentation shows `clip_low_threshold: 0.8`,
                `clip_high_threshold: 1.2`, `beta: 0.1` as example values, not defaults. This project's
                defaults: 0.8, 1.28, 0.0, FIXED_HORIZON, TOKEN (the live server's clip defaults are unconfirmed).
            ppo_params (PPOLossParams | Unset): PPO clip bounds, absolute (not 1±epsilon). This project's defaults 0.8 and
                1.2 (unconfirmed for the live API).
            cispo_params (CISPOLossParams | Unset): Bounds of the clipped, detached importance weight. This project's
                defaults 0.0 and 4.0
                (Tinker's one-sided default; unconfirmed for the live API); `clip_low_threshold` must not
                exceed `clip_high_threshold`. The user's documentation shows only `clip_high_threshold: 4`.
            dro_params (DROLossParams | Unset): DRO parameters. The params object is required for `LOSS_TYPE_DRO` because
                `beta` has no default.
            dppo_params (DPPOLossParams | Unset): Probability-change limits, measured in probability space (not log-
                probability space).
    """

    type_: LossType
    cross_entropy_params: CrossEntropyLossParams | Unset = UNSET
    grpo_params: GRPOLossParams | Unset = UNSET
    ppo_params: PPOLossParams | Unset = UNSET
    cispo_params: CISPOLossParams | Unset = UNSET
    dro_params: DROLossParams | Unset = UNSET
    dppo_params: DPPOLossParams | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        type_ = self.type_.value

        cross_entropy_params: dict[str, Any] | Unset = UNSET
        if not isinstance(self.cross_entropy_params, Unset):
            cross_entropy_params = self.cross_entropy_params.to_dict()

        grpo_params: dict[str, Any] | Unset = UNSET
        if not isinstance(self.grpo_params, Unset):
            grpo_params = self.grpo_params.to_dict()

        ppo_params: dict[str, Any] | Unset = UNSET
        if not isinstance(self.ppo_params, Unset):
            ppo_params = self.ppo_params.to_dict()

        cispo_params: dict[str, Any] | Unset = UNSET
        if not isinstance(self.cispo_params, Unset):
            cispo_params = self.cispo_params.to_dict()

        dro_params: dict[str, Any] | Unset = UNSET
        if not isinstance(self.dro_params, Unset):
            dro_params = self.dro_params.to_dict()

        dppo_params: dict[str, Any] | Unset = UNSET
        if not isinstance(self.dppo_params, Unset):
            dppo_params = self.dppo_params.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
            }
        )
        if cross_entropy_params is not UNSET:
            field_dict["cross_entropy_params"] = cross_entropy_params
        if grpo_params is not UNSET:
            field_dict["grpo_params"] = grpo_params
        if ppo_params is not UNSET:
            field_dict["ppo_params"] = ppo_params
        if cispo_params is not UNSET:
            field_dict["cispo_params"] = cispo_params
        if dro_params is not UNSET:
            field_dict["dro_params"] = dro_params
        if dppo_params is not UNSET:
            field_dict["dppo_params"] = dppo_params

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.cispo_loss_params import CISPOLossParams
        from ..models.cross_entropy_loss_params import CrossEntropyLossParams
        from ..models.dppo_loss_params import DPPOLossParams
        from ..models.dro_loss_params import DROLossParams
        from ..models.grpo_loss_params import GRPOLossParams
        from ..models.ppo_loss_params import PPOLossParams

        d = dict(src_dict)
        type_ = LossType(d.pop("type"))

        _cross_entropy_params = d.pop("cross_entropy_params", UNSET)
        cross_entropy_params: CrossEntropyLossParams | Unset
        if isinstance(_cross_entropy_params, Unset):
            cross_entropy_params = UNSET
        else:
            cross_entropy_params = CrossEntropyLossParams.from_dict(_cross_entropy_params)

        _grpo_params = d.pop("grpo_params", UNSET)
        grpo_params: GRPOLossParams | Unset
        if isinstance(_grpo_params, Unset):
            grpo_params = UNSET
        else:
            grpo_params = GRPOLossParams.from_dict(_grpo_params)

        _ppo_params = d.pop("ppo_params", UNSET)
        ppo_params: PPOLossParams | Unset
        if isinstance(_ppo_params, Unset):
            ppo_params = UNSET
        else:
            ppo_params = PPOLossParams.from_dict(_ppo_params)

        _cispo_params = d.pop("cispo_params", UNSET)
        cispo_params: CISPOLossParams | Unset
        if isinstance(_cispo_params, Unset):
            cispo_params = UNSET
        else:
            cispo_params = CISPOLossParams.from_dict(_cispo_params)

        _dro_params = d.pop("dro_params", UNSET)
        dro_params: DROLossParams | Unset
        if isinstance(_dro_params, Unset):
            dro_params = UNSET
        else:
            dro_params = DROLossParams.from_dict(_dro_params)

        _dppo_params = d.pop("dppo_params", UNSET)
        dppo_params: DPPOLossParams | Unset
        if isinstance(_dppo_params, Unset):
            dppo_params = UNSET
        else:
            dppo_params = DPPOLossParams.from_dict(_dppo_params)

        loss_config = cls(
            type_=type_,
            cross_entropy_params=cross_entropy_params,
            grpo_params=grpo_params,
            ppo_params=ppo_params,
            cispo_params=cispo_params,
            dro_params=dro_params,
            dppo_params=dppo_params,
        )

        return loss_config


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "x-required-inputs": {
        "LOSS_TYPE_CISPO": ["target_tokens", "logprobs", "advantages"],
        "LOSS_TYPE_CROSS_ENTROPY": ["target_tokens", "weights"],
        "LOSS_TYPE_DPPO": ["target_tokens", "logprobs", "advantages"],
        "LOSS_TYPE_DRO": ["target_tokens", "logprobs", "advantages"],
        "LOSS_TYPE_GRPO": ["target_tokens", "logprobs", "advantages"],
        "LOSS_TYPE_IMPORTANCE_SAMPLING": ["target_tokens", "logprobs", "advantages"],
        "LOSS_TYPE_PPO": ["target_tokens", "logprobs", "advantages"],
    },
    "required": [
        "type",
    ],
    "properties": {
        "type": {
            "class": "LossType",
        },
        "cross_entropy_params": {
            "class": "CrossEntropyLossParams",
        },
        "grpo_params": {
            "class": "GRPOLossParams",
        },
        "ppo_params": {
            "class": "PPOLossParams",
        },
        "cispo_params": {
            "class": "CISPOLossParams",
        },
        "dro_params": {
            "class": "DROLossParams",
        },
        "dppo_params": {
            "class": "DPPOLossParams",
        },
    },
}
