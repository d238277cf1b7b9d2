"""Typed loss builders. Each checks its bounds on construction, naming the bad field, and turns
into the wire ``LossConfig`` with :meth:`Loss.to_wire`. Plain wire dicts are accepted wherever a
loss is, and are checked by the same rules (:func:`normalize_loss`).

The bounds, the required parameters, the ``LossConfig`` key of each params object and the inputs a
positive parameter requires (``x-requires-inputs-when-positive``) come from the spec (through the
generated models), and so do the sample inputs each loss type needs
(``LossConfig.x-required-inputs``); CISPO's low <= high is stated here as the spec's
description says it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from together_rl_client.models import (
    CISPOLossParams,
    CrossEntropyLossParams,
    DPPOLossParams,
    DROLossParams,
    GRPOLossParams,
    LossConfig,
    LossType,
    PPOLossParams,
)

from ._errors import InvalidRequestError
from ._schema import (
    check_enum,
    check_fields,
    inputs_required_when_positive,
    known_keys,
    property_for_class,
    schema_of,
    set_fields,
)

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

#: loss type -> the ``loss_fn_inputs`` keys every sample needs (``LossConfig.x-required-inputs``)
_REQUIRED_INPUTS: dict[str, list[str]] = schema_of(LossConfig)["x-required-inputs"]


@dataclass(frozen=True)
class Loss:
    """Base class of the loss builders: ``wire_type`` is the ``LossType``, ``params_model`` the
    generated params class (its key in ``LossConfig`` and its bounds come from the spec)."""

    wire_type: ClassVar[str]
    params_model: ClassVar[type | None] = None
    params_key: ClassVar[str | None] = None
    required_inputs: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.required_inputs = frozenset(_REQUIRED_INPUTS[cls.wire_type])
        if cls.params_model is not None:
            cls.params_key = property_for_class(LossConfig, cls.params_model)

    def __post_init__(self) -> None:
        if self.params_model is not None:
            check_fields(self, f"loss.{self.params_key}", self.params_model)

    def params(self) -> dict[str, Any]:
        """The params object's fields that are set."""
        return set_fields(self)

    def to_wire(self) -> dict[str, Any]:
        """The ``LossConfig`` wire dict (the params object only when a field is set)."""
        wire: dict[str, Any] = {"type": self.wire_type}
        params = self.params()
        if self.params_key is not None and params:
            wire[self.params_key] = params
        return wire

    def required_sample_inputs(self) -> frozenset[str]:
        """The ``loss_fn_inputs`` keys every sample needs with this loss: its type's, and those
        the spec requires when a parameter is positive (GRPO's ``beta``)."""
        required = self.required_inputs
        for name, value in self.params().items():
            if self.params_model is not None and isinstance(value, int | float) and value > 0:
                required |= inputs_required_when_positive(self.params_model, name)
        return required


@dataclass(frozen=True)
class CrossEntropy(Loss):
    """Supervised cross-entropy; needs ``target_tokens`` and ``weights``."""

    wire_type: ClassVar[str] = LossType.LOSS_TYPE_CROSS_ENTROPY.value
    params_model: ClassVar[type | None] = CrossEntropyLossParams


@dataclass(frozen=True)
class GRPO(Loss):
    """GRPO. Clip thresholds are absolute ratio bounds (low <= 1 <= high); ``beta`` > 0 makes
    ``reference_logprobs`` required."""

    clip_low_threshold: float | None = None
    clip_high_threshold: float | None = None
    beta: float | None = None
    agg_type: str | None = None
    ratio_type: str | None = None

    wire_type: ClassVar[str] = LossType.LOSS_TYPE_GRPO.value
    params_model: ClassVar[type | None] = GRPOLossParams


@dataclass(frozen=True)
class ImportanceSampling(Loss):
    """Importance-sampling policy gradient; no parameters."""

    wire_type: ClassVar[str] = LossType.LOSS_TYPE_IMPORTANCE_SAMPLING.value


@dataclass(frozen=True)
class PPO(Loss):
    """PPO clipped surrogate; absolute ratio bounds (low <= 1 <= high)."""

    clip_low_threshold: float | None = None
    clip_high_threshold: float | None = None

    wire_type: ClassVar[str] = LossType.LOSS_TYPE_PPO.value
    params_model: ClassVar[type | None] = PPOLossParams


@dataclass(frozen=True)
class CISPO(Loss):
    """CISPO: clipped, detached importance weight (both bounds >= 0, low <= high)."""

    clip_low_threshold: float | None = None
    clip_high_threshold: float | None = None

    wire_type: ClassVar[str] = LossType.LOSS_TYPE_CISPO.value
    params_model: ClassVar[type | None] = CISPOLossParams

    def __post_init__(self) -> None:
        super().__post_init__()
        low, high = self.clip_low_threshold, self.clip_high_threshold
        if low is not None and high is not None and low > high:
            raise InvalidRequestError(
                f"loss.cispo_params.clip_low_threshold ({low!r}) must not exceed "
                f"clip_high_threshold ({high!r})",
                field="loss.cispo_params.clip_low_threshold",
            )


@dataclass(frozen=True)
class DRO(Loss):
    """DRO; ``beta`` is required (the spec gives it no default)."""

    beta: float | None = None

    wire_type: ClassVar[str] = LossType.LOSS_TYPE_DRO.value
    params_model: ClassVar[type | None] = DROLossParams


@dataclass(frozen=True)
class DPPO(Loss):
    """DPPO; probability-change limits (unset ones take the server default)."""

    delta_low: float | None = None
    delta_high: float | None = None

    wire_type: ClassVar[str] = LossType.LOSS_TYPE_DPPO.value
    params_model: ClassVar[type | None] = DPPOLossParams


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
    if loss.get("type") is None:
        raise InvalidRequestError("loss.type is required", field="loss.type")
    wire_type = check_enum("loss.type", loss["type"], LossType, _BUILDERS)
    cls = _BUILDERS[wire_type]
    label = f"loss.{cls.params_key}"
    for key in (key for key in loss if key not in ("type", cls.params_key)):
        reason = f"belongs to another loss type than {wire_type}"
        if key not in _PARAMS_KEYS:
            reason = "is not a LossConfig field"
        raise InvalidRequestError(f"loss.{key} {reason}", field=f"loss.{key}")
    params = loss.get(cls.params_key) if cls.params_key else None
    if not isinstance(params, Mapping | None):
        raise InvalidRequestError(f"{label} must be an object", field=label)
    known_keys(label, params or {}, (f.name for f in fields(cls)), str(cls.params_key))
    builder = cls(**dict(params or {}))
    wire: dict[str, Any] = {"type": wire_type}
    if cls.params_key is not None and cls.params_key in loss:
        wire[cls.params_key] = builder.params()
    return wire, builder
