"""Value checks with the rules of the generated models' ``SCHEMA``, each naming the field."""

from __future__ import annotations

import importlib
import math
import numbers
import operator
import re
from collections.abc import Iterable, Mapping
from dataclasses import fields
from enum import Enum
from typing import Any, TypeVar, cast

from together_rl_client import models

from ._errors import InvalidRequestError

E = TypeVar("E", bound=Enum)

__all__ = [
    "all_of_type",
    "check_enum",
    "check_fields",
    "check_value",
    "enum_member",
    "invalid",
    "known_keys",
    "number",
    "schema_of",
    "set_fields",
]

#: the bounds of the spec's ``format: int64`` integers, for an integer it gives no other
_INT64 = {"minimum": -(2**63), "maximum": 2**63 - 1}
_BOUNDS = (
    ("minimum", operator.ge, ">="),
    ("exclusiveMinimum", operator.gt, ">"),
    ("maximum", operator.le, "<="),
    ("exclusiveMaximum", operator.lt, "<"),
)


def invalid(field: str, reason: str) -> InvalidRequestError:
    """``"<field> <reason>"``, naming ``field``."""
    return InvalidRequestError(f"{field} {reason}", field=field)


def schema_of(model: type) -> Mapping[str, Any]:
    """The ``SCHEMA`` emitted beside a generated model class."""
    return cast(Mapping[str, Any], importlib.import_module(model.__module__).SCHEMA)


def number(field: str, value: object) -> float:
    """A finite real number (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise invalid(field, f"must be a number, got {value!r}")
    if not math.isfinite(value):
        raise invalid(field, f"must be finite, got {value!r}")
    return float(value)


def check_value(label: str, value: object, model: type, integer: bool = False) -> Any:
    """``value`` as ``model``'s property ``label`` takes it: an enum value, an int or a float."""
    prop = schema_of(model)["properties"][label.rpartition(".")[2]]
    enum = getattr(models, str(prop.get("class", "")), None)
    if isinstance(enum, type) and issubclass(enum, Enum):
        return check_enum(label, value, enum)
    if not integer:
        result: float = number(label, value)
    elif isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise invalid(label, f"must be an integer, got {value!r}")
    else:
        result, prop = int(value), {**_INT64, **prop}
    for keyword, within, sign in _BOUNDS:
        bound = prop.get(keyword)
        if bound is not None and not within(result, bound):
            raise invalid(label, f"must be {sign} {bound:g}, got {value!r}")
    return result


def check_enum(
    label: str, value: object, enum: type[Enum], allowed: Iterable[str] | None = None
) -> str:
    """One of ``enum``'s values (or of ``allowed``), or its short name (``"token_mean"``)."""
    prefix = re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", enum.__name__).upper()
    candidates = {str(m.value) for m in enum} if allowed is None else set(allowed)
    for text in (str(value), f"{prefix}_{str(value).upper()}"):
        if text in candidates:
            return text
    raise invalid(label, f"must be one of {sorted(candidates)}, got {value!r}")


def enum_member(label: str, enum: type[E], value: str) -> E:
    """The member of the generated ``enum`` that ``value`` names (short names expanded)."""
    return enum(check_enum(label, value, enum))


def check_fields(obj: Any, prefix: str, model: type, skip: str = "") -> None:
    """Check the dataclass ``obj`` against ``model``: required fields, every set one's value."""
    for name in schema_of(model)["required"]:
        if getattr(obj, name, None) is None:
            raise invalid(f"{prefix}.{name}", "is required (the spec gives no default)")
    for f in fields(obj):
        value = getattr(obj, f.name)
        if value is not None and f.name != skip:
            checked = check_value(f"{prefix}.{f.name}", value, model, str(f.type).startswith("int"))
            object.__setattr__(obj, f.name, checked)


def set_fields(obj: Any) -> dict[str, Any]:
    """The set (not ``None``) fields of the dataclass ``obj``, as sent (tuples as lists)."""
    values = {f.name: getattr(obj, f.name) for f in fields(obj)}
    return {k: list(v) if isinstance(v, tuple) else v for k, v in values.items() if v is not None}


def known_keys(label: str, value: Mapping[str, Any], names: Iterable[str], what: str) -> None:
    """Refuse the first key of ``value`` (at ``label``) that is not a field of ``what``."""
    allowed = sorted(names)
    for key in value:
        if key not in allowed:
            field = f"{label}.{key}" if label else str(key)
            raise invalid(field, f"is not a field of {what} ({', '.join(allowed)})")


def all_of_type(values: Iterable[Any], kind: type | tuple[type, ...]) -> bool:
    """Every element a ``kind``, not a bool, checked once per type (faster than per element)."""
    return all(issubclass(t, kind) and not issubclass(t, bool) for t in set(map(type, values)))
