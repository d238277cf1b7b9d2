"""Module and class names as openapi-python-client 0.29 derives them (its `strings.py`)."""

from __future__ import annotations

import builtins
import re
from keyword import iskeyword

__all__ = ["class_name", "module_name"]

_DELIMITERS = r"\. _-"
_RESERVED = (set(dir(builtins)) | {"self", "true", "false", "datetime"}) - {"id"}


def _split_words(value: str) -> list[str]:
    value = "".join(c for c in value if c.isidentifier() or c.isdecimal() or c in _DELIMITERS)
    if any(c.isupper() for c in value):
        value = " ".join(re.split("([A-Z]?[a-z]+)", value))
    return re.findall(rf"[^{re.escape(_DELIMITERS)}]+", value)


def _fix_reserved(value: str) -> str:
    return f"{value}_" if value in _RESERVED or iskeyword(value) else value


def class_name(value: str) -> str:
    """`ErrorData_error` -> `ErrorDataError` (the generator's ClassName)."""
    words = _split_words(value)
    return _fix_reserved("".join(w if w.isupper() else w.capitalize() for w in words))


def module_name(value: str) -> str:
    """`GRPOLossParams` -> `grpo_loss_params` (the generator's snake_case)."""
    return _fix_reserved("_".join(_split_words(value)).lower())
