"""Loss builders checked on construction with the spec's rules, and wire ``LossConfig`` dicts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from together_rl_client import models

from . import _fields
from ._schema import check_enum, check_fields, invalid, known_keys, set_fields

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


@dataclass(frozen=True)
class Loss:
    """Base of the loss builders (``wire_type``: the ``LossType``; fields: the spec's)."""

    wire_type: ClassVar[str]
    spec_model: ClassVar[type | None] = None
    params_key: ClassVar[str | None] = None
    required_inputs: ClassVar[frozenset[str]] = frozenset()
    inputs_when_positive: ClassVar[dict[str, frozenset[str]]] = {}

    def __init_subclass__(cls, loss_type: models.LossType | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if loss_type is not None:  # a subclass of a builder keeps its loss
            cls.wire_type = loss_type.value
            cls.params_key, cls.required_inputs = _fields.LOSS_TYPES[cls.wire_type]

    def __post_init__(self) -> None:
        if self.spec_model is not None:
            check_fields(self, f"loss.{self.params_key}", self.spec_model)

    def params(self) -> dict[str, Any]:  # the params object's fields that are set
        return set_fields(self)

    def to_wire(self) -> dict[str, Any]:
        """The ``LossConfig`` wire dict (the params object only when a field is set)."""
        params = self.params()
        if self.params_key is not None and params:
            return {"type": self.wire_type, self.params_key: params}
        return {"type": self.wire_type}

    def required_sample_inputs(self) -> frozenset[str]:
        """The inputs a sample needs: its type's, and a positive parameter's (GRPO's ``beta``)."""
        required = self.required_inputs
        for name, value in self.params().items():
            if isinstance(value, int | float) and value > 0:
                required |= self.inputs_when_positive.get(name, frozenset())
        return required


@dataclass(frozen=True)
class CrossEntropy(
    _fields.CrossEntropyLossParamsFields, Loss, loss_type=models.LossType.LOSS_TYPE_CROSS_ENTROPY
):
    """Supervised cross-entropy; needs ``target_tokens`` and ``weights``."""


@dataclass(frozen=True)
class GRPO(_fields.GRPOLossParamsFields, Loss, loss_type=models.LossType.LOSS_TYPE_GRPO):
    """GRPO: absolute clip bounds (low <= 1 <= high); ``beta`` > 0 needs ``reference_logprobs``."""


@dataclass(frozen=True)
class ImportanceSampling(Loss, loss_type=models.LossType.LOSS_TYPE_IMPORTANCE_SAMPLING):
    """Importance-sampling policy gradient; no parameters."""


@dataclass(frozen=True)
class PPO(_fields.PPOLossParamsFields, Loss, loss_type=models.LossType.LOSS_TYPE_PPO):
    """PPO clipped surrogate; absolute ratio bounds (low <= 1 <= high)."""


@dataclass(frozen=True)
class CISPO(_fields.CISPOLossParamsFields, Loss, loss_type=models.LossType.LOSS_TYPE_CISPO):
    """CISPO: clipped, detached importance weight (both bounds >= 0, low <= high)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        low, high = self.clip_low_threshold, self.clip_high_threshold
        if low is not None and high is not None and low > high:
            reason = f"({low!r}) must not exceed clip_high_threshold ({high!r})"
            raise invalid("loss.cispo_params.clip_low_threshold", reason)


@dataclass(frozen=True)
class DRO(_fields.DROLossParamsFields, Loss, loss_type=models.LossType.LOSS_TYPE_DRO):
    """DRO; ``beta`` is required (the spec gives it no default)."""


@dataclass(frozen=True)
class DPPO(_fields.DPPOLossParamsFields, Loss, loss_type=models.LossType.LOSS_TYPE_DPPO):
    """DPPO; probability-change limits (unset ones take the server default)."""


_BUILDERS = {cls.wire_type: cls for cls in Loss.__subclasses__()}  # the builders above
_PARAMS_KEYS = frozenset(cls.params_key for cls in _BUILDERS.values() if cls.params_key)


def normalize_loss(loss: Loss | Mapping[str, Any]) -> tuple[dict[str, Any], Loss]:
    """A loss (builder or wire dict, short ``type`` names expanded): its wire dict and builder."""
    if isinstance(loss, Loss):
        return loss.to_wire(), loss
    if not isinstance(loss, Mapping):
        kind = type(loss).__name__
        raise invalid("loss", f"must be a losses.* builder or a LossConfig dict, got {kind}")
    if loss.get("type") is None:
        raise invalid("loss.type", "is required")
    cls = _BUILDERS[check_enum("loss.type", loss["type"], models.LossType, _BUILDERS)]
    label = f"loss.{cls.params_key}"
    for key in (key for key in loss if key not in ("type", cls.params_key)):
        reason = f"belongs to another loss type than {cls.wire_type}"
        if key not in _PARAMS_KEYS:
            reason = "is not a LossConfig field"
        raise invalid(f"loss.{key}", reason)
    params = loss.get(cls.params_key) if cls.params_key else None
    if not isinstance(params, Mapping | None):
        raise invalid(label, "must be an object")
    known_keys(label, params or {}, (f.name for f in fields(cls)), str(cls.params_key))
    builder = cls(**dict(params or {}))
    wire: dict[str, Any] = {"type": cls.wire_type}
    if cls.params_key is not None and cls.params_key in loss:
        wire[cls.params_key] = builder.params()
    return wire, builder
