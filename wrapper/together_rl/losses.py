"""Typed loss builders. Each checks its bounds on construction, naming the bad field, and turns
into the wire ``LossConfig`` with :meth:`Loss.to_wire`. Plain wire dicts are accepted wherever a
loss is, and are checked by the same rules (:func:`normalize_loss`)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from together_rl_client.models.grpo_loss_aggregation_type import GRPOLossAggregationType
from together_rl_client.models.grpo_loss_ratio_type import GRPOLossRatioType

from ._checks import bounded, enum_value
from ._errors import InvalidRequestError

POLICY_INPUTS = frozenset({"target_tokens", "logprobs", "advantages"})

__all__ = [
    "CISPO",
    "DPPO",
    "DRO",
    "GRPO",
    "PPO",
    "CrossEntropy",
    "ImportanceSampling",
    "Loss",
    "normalize_loss",
]


def _check_range(
    field: str, value: float | None, low: float | None = None, high: float | None = None
) -> None:
    if value is not None:
        bounded(field, value, low=low, high=high)


def _enum_value(field: str, value: object, enum: Any, prefix: str) -> str | None:
    if value is None:
        return None
    return enum_value(field, value, (member.value for member in enum), prefix)


@dataclass(frozen=True)
class Loss:
    """Base class of the loss builders."""

    wire_type: ClassVar[str]
    params_key: ClassVar[str | None] = None
    required_inputs: ClassVar[frozenset[str]] = POLICY_INPUTS

    def params(self) -> dict[str, Any]:
        """The params object's fields that are set."""
        return {
            f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None
        }

    def to_wire(self) -> dict[str, Any]:
        """The ``LossConfig`` wire dict (the params object only when a field is set)."""
        wire: dict[str, Any] = {"type": self.wire_type}
        params = self.params()
        if self.params_key is not None and params:
            wire[self.params_key] = params
        return wire

    def required_sample_inputs(self) -> frozenset[str]:
        return self.required_inputs


@dataclass(frozen=True)
class CrossEntropy(Loss):
    """Supervised cross-entropy; needs ``target_tokens`` and ``weights``."""

    wire_type: ClassVar[str] = "LOSS_TYPE_CROSS_ENTROPY"
    params_key: ClassVar[str | None] = "cross_entropy_params"
    required_inputs: ClassVar[frozenset[str]] = frozenset({"target_tokens", "weights"})


@dataclass(frozen=True)
class GRPO(Loss):
    """GRPO. Clip thresholds are absolute ratio bounds (low <= 1 <= high); ``beta`` > 0 makes
    ``reference_logprobs`` required."""

    clip_low_threshold: float | None = None
    clip_high_threshold: float | None = None
    beta: float | None = None
    agg_type: str | None = None
    ratio_type: str | None = None

    wire_type: ClassVar[str] = "LOSS_TYPE_GRPO"
    params_key: ClassVar[str | None] = "grpo_params"

    def __post_init__(self) -> None:
        _check_range("loss.grpo_params.clip_low_threshold", self.clip_low_threshold, 0.0, 1.0)
        _check_range("loss.grpo_params.clip_high_threshold", self.clip_high_threshold, 1.0)
        _check_range("loss.grpo_params.beta", self.beta, 0.0)
        object.__setattr__(
            self,
            "agg_type",
            _enum_value(
                "loss.grpo_params.agg_type",
                self.agg_type,
                GRPOLossAggregationType,
                "GRPO_LOSS_AGGREGATION_TYPE_",
            ),
        )
        object.__setattr__(
            self,
            "ratio_type",
            _enum_value(
                "loss.grpo_params.ratio_type",
                self.ratio_type,
                GRPOLossRatioType,
                "GRPO_LOSS_RATIO_TYPE_",
            ),
        )

    def required_sample_inputs(self) -> frozenset[str]:
        if self.beta is not None and self.beta > 0:
            return POLICY_INPUTS | {"reference_logprobs"}
        return POLICY_INPUTS


@dataclass(frozen=True)
class ImportanceSampling(Loss):
    """Importance-sampling policy gradient; no parameters."""

    wire_type: ClassVar[str] = "LOSS_TYPE_IMPORTANCE_SAMPLING"


@dataclass(frozen=True)
class PPO(Loss):
    """PPO clipped surrogate; absolute ratio bounds (low <= 1 <= high)."""

    clip_low_threshold: float | None = None
    clip_high_threshold: float | None = None

    wire_type: ClassVar[str] = "LOSS_TYPE_PPO"
    params_key: ClassVar[str | None] = "ppo_params"

    def __post_init__(self) -> None:
        _check_range("loss.ppo_params.clip_low_threshold", self.clip_low_threshold, 0.0, 1.0)
        _check_range("loss.ppo_params.clip_high_threshold", self.clip_high_threshold, 1.0)


@dataclass(frozen=True)
class CISPO(Loss):
    """CISPO: clipped, detached importance weight (both bounds >= 0, low <= high)."""

    clip_low_threshold: float | None = None
    clip_high_threshold: float | None = None

    wire_type: ClassVar[str] = "LOSS_TYPE_CISPO"
    params_key: ClassVar[str | None] = "cispo_params"

    def __post_init__(self) -> None:
        _check_range("loss.cispo_params.clip_low_threshold", self.clip_low_threshold, 0.0)
        _check_range("loss.cispo_params.clip_high_threshold", self.clip_high_threshold, 0.0)
        low, high = self.clip_low_threshold, self.clip_high_threshold
        if low is not None and high is not None and low > high:
            raise InvalidRequestError(
                f"loss.cispo_params.clip_low_threshold ({low!r}) must not exceed "
                f"clip_high_threshold ({high!r})",
                field="loss.cispo_params.clip_low_threshold",
            )


@dataclass(frozen=True)
class DRO(Loss):
    """DRO; ``beta`` (>= 0) is required."""

    beta: float = math.nan

    wire_type: ClassVar[str] = "LOSS_TYPE_DRO"
    params_key: ClassVar[str | None] = "dro_params"

    def __post_init__(self) -> None:
        if isinstance(self.beta, float) and math.isnan(self.beta):
            raise InvalidRequestError(
                "loss.dro_params.beta is required for DRO (there is no default)",
                field="loss.dro_params.beta",
            )
        _check_range("loss.dro_params.beta", self.beta, 0.0)


@dataclass(frozen=True)
class DPPO(Loss):
    """DPPO; probability-change limits in [0, 1] (server default 0.15)."""

    delta_low: float | None = None
    delta_high: float | None = None

    wire_type: ClassVar[str] = "LOSS_TYPE_DPPO"
    params_key: ClassVar[str | None] = "dppo_params"

    def __post_init__(self) -> None:
        _check_range("loss.dppo_params.delta_low", self.delta_low, 0.0, 1.0)
        _check_range("loss.dppo_params.delta_high", self.delta_high, 0.0, 1.0)


_BUILDERS: dict[str, type[Loss]] = {
    cls.wire_type: cls for cls in (CrossEntropy, GRPO, ImportanceSampling, PPO, CISPO, DRO, DPPO)
}
_PARAMS_KEYS = frozenset(cls.params_key for cls in _BUILDERS.values() if cls.params_key)


def normalize_loss(loss: Loss | Mapping[str, Any]) -> tuple[dict[str, Any], Loss]:
    """Check a loss (builder or wire dict) and return its wire dict and its builder.

    A wire dict keeps its own shape (so it is sent as given) after the same checks as a
    builder: a known ``type`` (short names such as ``"grpo"`` are expanded, as the official
    SDK does), no params object of another loss, and the params' bounds.
    """
    if isinstance(loss, Loss):
        return loss.to_wire(), loss
    if not isinstance(loss, Mapping):
        raise InvalidRequestError(
            f"loss must be a losses.* builder or a LossConfig dict, got {type(loss).__name__}",
            field="loss",
        )
    raw_type = loss.get("type")
    if raw_type is None:
        raise InvalidRequestError("loss.type is required", field="loss.type")
    wire_type = enum_value("loss.type", raw_type, _BUILDERS, "LOSS_TYPE_")
    builder_cls = _BUILDERS[wire_type]
    for key in loss:
        if key == "type":
            continue
        if key != builder_cls.params_key:
            reason = (
                f"belongs to another loss type than {wire_type}"
                if key in _PARAMS_KEYS
                else "is not a LossConfig field"
            )
            raise InvalidRequestError(f"loss.{key} {reason}", field=f"loss.{key}")
    params = loss.get(builder_cls.params_key) if builder_cls.params_key else None
    if params is None:
        params = {}
    if not isinstance(params, Mapping):
        field = f"loss.{builder_cls.params_key}"
        raise InvalidRequestError(f"{field} must be an object", field=field)
    names = {f.name for f in fields(builder_cls)}
    for key in params:
        if key not in names:
            field = f"loss.{builder_cls.params_key}.{key}"
            raise InvalidRequestError(
                f"{field} is not a field of {builder_cls.params_key}", field=field
            )
    builder = builder_cls(**dict(params))
    wire: dict[str, Any] = {"type": wire_type}
    if builder_cls.params_key is not None and builder_cls.params_key in loss:
        wire[builder_cls.params_key] = builder.params()
    return wire, builder
