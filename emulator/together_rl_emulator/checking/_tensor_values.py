"""The values of token lists and tensors, checked and converted: token ids inside the vocabulary,
numbers finite and inside their dtype's range, int64 tensors integral. Every refusal is a 400
naming the element (`...tokens[7]`, `... at data[3]`)."""

from __future__ import annotations

import array
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..base import DTYPES, invalid

__all__ = ["fits_double", "require_all", "tensor_values", "token_array"]


def _dtype(name: str) -> str:
    if name not in DTYPES:
        raise KeyError(f"the spec's DType has no {name!r}")
    return name


_INT64 = _dtype("int64")
_FLOAT32 = _dtype("float32")
_FLOAT32_MAX = float(np.finfo(np.float32).max)
_INT64_LIMIT = 2.0**63


def token_array(
    input_path: str,
    chunk_tokens: list[list[Any]],
    token_list: list[Any],
    vocab_size: int,
    converted: np.ndarray | None = None,
) -> np.ndarray:
    """The model input as int64 (`converted`: already); token ids are ints or decimal strings
    (checked by the schema)."""
    tokens = converted
    if tokens is None and float in set(map(type, token_list)):
        # The schema counts 3.0 as an integer; the emulator does not (`_strict_numbers.py`).
        bad = next(j for j, t in enumerate(token_list) if type(t) is float)
        chunk, at = _chunk_position(chunk_tokens, bad)
        raise invalid(
            f"{input_path}.chunks[{chunk}].encoded_text.tokens[{at}]",
            f"expected integer or string, got number {chunk_tokens[chunk][at]!r}"
            " (JSON Schema counts it as an integer; this emulator does not)",
            emulator_rule=True,
        )
    if tokens is None:
        try:
            # The schema admits only ints and decimal strings here; fromiter parses both, fast.
            tokens = np.fromiter(token_list, dtype=np.int64, count=len(token_list))
        except (OverflowError, ValueError, TypeError):
            tokens = None  # beyond int64: certainly outside the vocabulary, located below
    if tokens is not None:
        in_vocab = (tokens >= 0) & (tokens < vocab_size)
        if bool(in_vocab.all()):
            return tokens
        bad = int(np.flatnonzero(~in_vocab)[0])
    else:
        bad = next(j for j, t in enumerate(token_list) if not 0 <= int(t) < vocab_size)
    chunk, bad = _chunk_position(chunk_tokens, bad)
    value = chunk_tokens[chunk][bad]
    raise invalid(
        f"{input_path}.chunks[{chunk}].encoded_text.tokens[{bad}]",
        f"token id {value} is outside the vocabulary of the base model [0, {vocab_size})",
    )


def _chunk_position(chunk_tokens: list[list[Any]], index: int) -> tuple[int, int]:
    """`(chunk, position in it)` of the `index`-th token of the concatenated chunks."""
    chunk = 0
    while index >= len(chunk_tokens[chunk]):
        index -= len(chunk_tokens[chunk])
        chunk += 1
    return chunk, index


def tensor_values(
    path: str, tensor: dict[str, Any], converted: np.ndarray | None = None
) -> np.ndarray:
    """The tensor's data as float64, checked for finiteness, its dtype's range and integrality.

    The schema has already admitted only JSON numbers in `data`, so the fast conversions below
    never see strings or booleans. `converted` is the data already converted exactly (int64 from
    ints, float64 from floats), when the caller has it.
    """
    data: list[Any] = tensor["data"]
    if converted is not None and converted.dtype == np.int64 and tensor["dtype"] == _INT64:
        return converted.astype(np.float64)
    if converted is not None and converted.dtype == np.float64 and tensor["dtype"] == _FLOAT32:
        if not (converted.max() <= _FLOAT32_MAX and converted.min() >= -_FLOAT32_MAX):
            require_all(path, converted, np.abs(converted) <= _FLOAT32_MAX, _float32_reason)
        return converted
    if tensor["dtype"] == _INT64:
        try:
            # array("q") takes exact ints only: a float or an int beyond int64 raises, and the
            # general path below then finds and names the value.
            exact = np.frombuffer(array.array("q", data), dtype=np.int64)
            return exact.astype(np.float64)
        except (OverflowError, TypeError, ValueError):
            pass
    try:
        values = np.fromiter(data, dtype=np.float64, count=len(data))
    except (OverflowError, ValueError, TypeError):
        bad = next(j for j, v in enumerate(data) if not fits_double(v))
        raise invalid(path, f"number too large for a double at data[{bad}]") from None
    if tensor["dtype"] == _FLOAT32:
        # Written so that NaN fails too (every comparison with NaN is False).
        if not (values.max() <= _FLOAT32_MAX and values.min() >= -_FLOAT32_MAX):
            require_all(path, values, np.abs(values) <= _FLOAT32_MAX, _float32_reason)
        return values
    # int64 holding floats or huge ints (rare): integral and inside [-2**63, 2**63). NaN and
    # Infinity are never `ok`. float64 rounds ints near +-2**63, so ints are judged exactly.
    ok = (values == np.trunc(values)) & (values >= -_INT64_LIMIT) & (values < _INT64_LIMIT)
    for j, original in enumerate(data):
        if type(original) is int:
            ok[j] = -(2**63) <= original < 2**63
    require_all(path, values, ok, _int64_reason, originals=data)
    return values


def fits_double(value: Any) -> bool:
    try:
        float(value)
    except (OverflowError, ValueError, TypeError):
        return False
    return True


def _float32_reason(value: float) -> str:
    if not math.isfinite(value):
        return "NaN and Infinity are not valid numbers"
    return f"{value!r} does not fit in float32"


def _int64_reason(value: float | int) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN and Infinity are not valid numbers"
    if isinstance(value, float) and value != math.trunc(value):
        return f"int64 tensors hold integers, got {value!r}"
    return f"{value!r} does not fit in int64"


def require_all(
    path: str,
    values: np.ndarray,
    ok: np.ndarray,
    reason: Callable[[Any], str],
    originals: list[Any] | None = None,
) -> None:
    """Refuse the tensor at `path` for its first element where `ok` is False, if any."""
    if ok.all():  # the common case, in one call (a batch checks this once per sample)
        return
    bad = np.flatnonzero(~ok)
    if bad.size:
        j = int(bad[0])
        value = originals[j] if originals is not None else float(values[j])
        raise invalid(path, f"{reason(value)} at data[{j}]")
