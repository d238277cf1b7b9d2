"""The spec's facts as the generated client carries them (``make generate`` emits a ``SCHEMA``
beside every model: required names, bounds, lengths, defaults and the ``x-`` rule keywords). The
wrapper checks values with these, so a bound, a limit or a loss-input rule changed in
``spec/openapi.yaml`` is followed after regenerating, with no edit here."""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import fields
from enum import Enum
from typing import Any

from together_rl_client import models
from together_rl_client.models import LossFnInputs

from ._checks import bounded, enum_value, integer

__all__ = [
    "EXCLUSIVE_INPUTS",
    "INPUT_DTYPES",
    "INT64_MAX",
    "check_enum",
    "check_fields",
    "check_integer",
    "check_number",
    "inputs_required_when_positive",
    "property_enum",
    "property_for_class",
    "schema_of",
    "set_fields",
]

#: the largest int64, the bound of the spec's ``format: int64`` integers
INT64_MAX = 2**63 - 1


def schema_of(model: type) -> Mapping[str, Any]:
    """The ``SCHEMA`` emitted beside a generated model class."""
    schema: Mapping[str, Any] = importlib.import_module(model.__module__).SCHEMA
    return schema


def _property(model: type, name: str) -> Mapping[str, Any]:
    prop: Mapping[str, Any] = schema_of(model)["properties"][name]
    return prop


def check_number(label: str, value: object, model: type, name: str) -> float:
    """A finite number within the bounds the spec gives ``model``'s property ``name``."""
    prop = _property(model, name)
    low, low_open = prop.get("minimum"), False
    if prop.get("exclusiveMinimum") is not None:
        low, low_open = prop["exclusiveMinimum"], True
    high, high_open = prop.get("maximum"), False
    if prop.get("exclusiveMaximum") is not None:
        high, high_open = prop["exclusiveMaximum"], True
    return bounded(label, value, low=low, low_open=low_open, high=high, high_open=high_open)


def check_integer(label: str, value: object, model: type, name: str) -> int:
    """An integer within the range the spec gives ``model``'s property ``name`` (int64 where
    it gives no bound)."""
    prop = _property(model, name)
    low, high = prop.get("minimum", -INT64_MAX - 1), prop.get("maximum", INT64_MAX)
    return integer(label, value, int(low), int(high))


def check_enum(
    label: str, value: object, enum: type[Enum], allowed: Iterable[str] | None = None
) -> str:
    """One of the generated ``enum``'s values (or of ``allowed``, a subset), or its short name:
    ``"token_mean"`` for ``GRPOLossAggregationType``'s ``GRPO_LOSS_AGGREGATION_TYPE_TOKEN_MEAN``
    (the prefix is the class name in upper snake case, as the spec names its enum values)."""
    prefix = re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", enum.__name__).upper()
    values = (str(m.value) for m in enum) if allowed is None else allowed
    return enum_value(label, value, values, prefix + "_")


def property_enum(model: type, name: str) -> type[Enum] | None:
    """The generated enum class of ``model``'s property ``name``, if it is one."""
    cls = getattr(models, str(_property(model, name).get("class", "")), None)
    return cls if isinstance(cls, type) and issubclass(cls, Enum) else None


def check_fields(obj: Any, prefix: str, model: type, skip: str = "") -> None:
    """Check every set field of the frozen dataclass ``obj`` (but ``skip``) against ``model``'s
    property of the same name (label ``prefix.field``), and keep the checked value: an enum
    value (short names expanded), an integer (a field annotated ``int``) or a number within the
    spec's bounds."""
    for f in fields(obj):
        value = getattr(obj, f.name)
        if value is None or f.name == skip:
            continue
        label = f"{prefix}.{f.name}"
        if (enum := property_enum(model, f.name)) is not None:
            checked: object = check_enum(label, value, enum)
        elif str(f.type).startswith("int"):
            checked = check_integer(label, value, model, f.name)
        else:
            checked = check_number(label, value, model, f.name)
        object.__setattr__(obj, f.name, checked)


def set_fields(obj: Any) -> dict[str, Any]:
    """The fields of the dataclass ``obj`` that are set (not ``None``): what goes on the wire."""
    values = {f.name: getattr(obj, f.name) for f in fields(obj)}
    return {name: value for name, value in values.items() if value is not None}


def property_for_class(model: type, cls: type) -> str:
    """The property of ``model`` whose schema is the generated class ``cls`` (for instance the
    ``LossConfig`` key that holds ``GRPOLossParams``)."""
    for name, prop in schema_of(model)["properties"].items():
        if prop.get("class") == cls.__name__:
            return str(name)
    raise LookupError(f"{model.__name__} has no property of type {cls.__name__}")


def inputs_required_when_positive(model: type, name: str) -> frozenset[str]:
    """The sample inputs the spec requires when ``model``'s number ``name`` is > 0
    (``x-requires-inputs-when-positive``)."""
    return frozenset(_property(model, name).get("x-requires-inputs-when-positive", ()))


_LOSS_FN_INPUTS = schema_of(LossFnInputs)
#: The dtypes each known ``loss_fn_inputs`` key may have, the first being the one sent for a
#: bare array or list (the spec's ``LossFnInputs.x-input-dtypes``).
INPUT_DTYPES: dict[str, tuple[str, ...]] = {
    key: tuple(dtypes) for key, dtypes in _LOSS_FN_INPUTS["x-input-dtypes"].items()
}
#: Groups of ``loss_fn_inputs`` keys of which a sample may hold one at most
#: (``LossFnInputs.x-exclusive-inputs``).
EXCLUSIVE_INPUTS: tuple[tuple[str, ...], ...] = tuple(
    tuple(group) for group in _LOSS_FN_INPUTS["x-exclusive-inputs"]
)
# The wrapper checks every tensor against the model input's token count: the one rule it knows.
assert _LOSS_FN_INPUTS["x-tensor-length"] == "model_input"
