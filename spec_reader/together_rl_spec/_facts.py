"""The enum facts every reader of the spec acts on: the values a client may choose, the loss
types and the `LossConfig` property that holds each one's params."""

from __future__ import annotations

from ._reading import SpecRoot, enum_value, enum_values, schema

__all__ = ["UNSPECIFIED_SUFFIX", "choices", "loss_types", "params_keys"]

#: The suffix of a proto zero value (`LOSS_TYPE_UNSPECIFIED`): never a client's choice.
UNSPECIFIED_SUFFIX = "_UNSPECIFIED"


def choices(enum_name: str, root: SpecRoot | None = None) -> tuple[str, ...]:
    """The values of an enum a client may choose: all but the proto zero value."""
    return tuple(v for v in enum_values(enum_name, root) if not v.endswith(UNSPECIFIED_SUFFIX))


def loss_types(root: SpecRoot | None = None) -> tuple[str, ...]:
    """The loss types a client may choose (`LossType` less its zero value), in the spec's order."""
    return choices("LossType", root)


def params_keys(root: SpecRoot | None = None) -> dict[str, str | None]:
    """Loss type -> the `LossConfig` property holding its params (`LOSS_TYPE_PPO` ->
    `ppo_params`), or None for a type whose params object the spec does not declare."""
    prefix = enum_value("LossType", "UNSPECIFIED", root).removesuffix("UNSPECIFIED")
    declared = schema("LossConfig", root)["properties"]
    keys: dict[str, str | None] = {}
    for loss_type in loss_types(root):
        key = loss_type.removeprefix(prefix).lower() + "_params"
        keys[loss_type] = key if key in declared else None
    return keys
