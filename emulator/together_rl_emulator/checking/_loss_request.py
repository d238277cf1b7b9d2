"""The `loss` object of a forward-backward request checked: its type, its own params object
(required when a param has no default), the params' bounds and finiteness, CISPO's low <= high.
The params of another loss are accepted (the schema has checked them) and left out."""

from __future__ import annotations

import math
from typing import Any

from ..base import (
    LOSS_PARAM_DEFAULTS,
    LOSS_PARAMS_REQUIRED,
    PARAMS_KEYS,
    enum_value,
    invalid,
    params_schema,
    resolve_ref,
    short_value,
)
from ._tensor_values import fits_double

__all__ = ["validated_loss"]

_CISPO = enum_value("LossType", "CISPO")


def validated_loss(loss: dict[str, Any]) -> dict[str, Any]:
    """`loss` as the math reads it: its type and its own params object, if sent. A params
    object of another loss is accepted (the schema has checked it) and left out."""
    loss_type: str = loss["type"]
    if loss_type not in PARAMS_KEYS:
        raise invalid(
            "loss.type", f"{loss_type} is not a loss; use one of {', '.join(PARAMS_KEYS)}"
        )
    params_key = PARAMS_KEYS[loss_type]
    if params_key is None:
        return {"type": loss_type}
    required = LOSS_PARAMS_REQUIRED[params_key]
    if required and params_key not in loss:
        raise invalid(
            f"loss.{params_key}", f"is required for {loss_type} ({required[0]} has no default)"
        )
    params: dict[str, Any] = loss.get(params_key, {})
    _check_param_bounds(params_key, params)
    if loss_type == _CISPO:
        # The spec's `CISPOLossParams` states this rule in its description.
        defaults = LOSS_PARAM_DEFAULTS[params_key]
        low = params.get("clip_low_threshold", defaults["clip_low_threshold"])
        high = params.get("clip_high_threshold", defaults["clip_high_threshold"])
        if low > high:
            shown = high if "clip_high_threshold" in params else f"{high}, the default"
            raise invalid(
                f"loss.{params_key}.clip_low_threshold",
                f"{low} exceeds clip_high_threshold ({shown}); need low <= high",
            )
    own = {"type": loss_type}
    if params_key in loss:
        own[params_key] = loss[params_key]
    return own


def _check_param_bounds(params_key: str, params: dict[str, Any]) -> None:
    """Re-check finiteness and the spec's minimum/maximum of each numeric param."""
    _check_numbers(f"loss.{params_key}", params, params_schema(params_key))


def _check_numbers(path: str, values: dict[str, Any], object_schema: dict[str, Any]) -> None:
    """Every number of `values` finite and inside its property's bounds in `object_schema`."""
    declared = object_schema.get("properties", {})
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        param = f"{path}.{name}"
        if not fits_double(value) or not math.isfinite(value):
            raise invalid(param, "must be a finite number that fits a double")
        node = declared.get(name, {})
        bounds = resolve_ref(node)
        if "minimum" in bounds and value < bounds["minimum"]:
            raise invalid(
                param, f"{short_value(value)} is less than the minimum of {bounds['minimum']}"
            )
        if "maximum" in bounds and value > bounds["maximum"]:
            raise invalid(
                param, f"{short_value(value)} is greater than the maximum of {bounds['maximum']}"
            )
