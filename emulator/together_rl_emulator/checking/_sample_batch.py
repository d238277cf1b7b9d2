"""The forward-backward samples of a schema-valid body checked all at once: their token lists and
tensor data concatenated into two arrays, every value rule applied to each array in one numpy
call. It never refuses: it flags the samples that may break a rule (a few harmless ones too),
and the caller runs the per-sample checks (`_requests._validate_sample`) on those, in order, so
the first bad sample and its message are the per-sample checks' own. A sample it does not flag
passes every per-sample rule, and its arrays here are the ones those checks would return.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "Gather",
    "Gathered",
    "Rules",
    "SampleArrays",
    "checked_in_bulk",
    "checked_with_rules",
    "concatenated",
    "data_ok",
    "gather_dicts",
    "reduce_ok",
]

#: A sample's model input (int64), its `loss_fn_inputs.target_tokens` (int64) and every
#: `loss_fn_inputs` key's data (float64), as `_requests.ValidatedSample` holds them.
SampleArrays = tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]

_SPARSE = ("sparse_crow_indices", "sparse_col_indices")
_FLOAT32_MAX = float(np.finfo(np.float32).max)
# Samples per numpy call: each call holds the GIL, and `/healthz` waits meanwhile.
_BLOCK = 1_000
# Conservative for int64 tensors: values near +-2**63 (rounded by float64) go to the exact checks.
_INT64_SAFE = 2.0**62
_INT, _TARGETS, _WEIGHTS = 1, 2, 4  # a tensor's dtype is int64, it is target_tokens, weights


def checked_in_bulk(
    samples: Sequence[Any],
    vocab_size: int,
    keys_ok: Callable[[tuple[str, ...]], bool],
    dtype_ok: Callable[[str, str], bool],
    gather: Gather | None = None,
) -> list[SampleArrays | None] | None:
    """Each sample's arrays, or None where the sample is flagged (to be checked alone).

    `keys_ok(keys)`: whether a `loss_fn_inputs` with these keys has every required input and
    no two exclusive ones; `dtype_ok(key, dtype)`: whether `key` may have `dtype`. None overall
    when the batch holds values these arrays cannot carry (token ids written as floats or
    beyond int64, numbers beyond a double): then every sample is checked alone. `gather` reads
    the samples (default: decoded JSON objects, `gather_dicts`; the typed decoder has its own).
    """
    return checked_with_rules(samples, vocab_size, Rules(keys_ok, dtype_ok), gather)


def checked_with_rules(
    samples: Sequence[Any], vocab_size: int, rules: Rules, gather: Gather | None = None
) -> list[SampleArrays | None] | None:
    """`checked_in_bulk` with its rules made already."""
    checked: list[SampleArrays | None] = []
    for start in range(0, len(samples), _BLOCK):
        gathered = (gather or gather_dicts)(samples[start : start + _BLOCK], rules)
        block = _checked_block(gathered, vocab_size)
        if block is None:
            return None
        checked += block
    return checked


class Rules:
    """`keys_ok` and `dtype_ok` (see `checked_in_bulk`), their answers kept by argument."""

    def __init__(
        self,
        keys_ok: Callable[[tuple[str, ...]], bool],
        dtype_ok: Callable[[str, str], bool],
    ) -> None:
        self._keys_ok = keys_ok
        self._dtype_ok = dtype_ok
        self._keys: dict[tuple[str, ...], bool] = {}
        self._tensors: dict[tuple[str, str], tuple[bool, int]] = {}

    def keys_ok(self, keys: tuple[str, ...]) -> bool:
        good = self._keys.get(keys)
        if good is None:
            good = self._keys[keys] = self._keys_ok(keys)
        return good

    def tensor(self, key: str, dtype: str) -> tuple[bool, int]:
        """Whether `key` may have `dtype`, and the value rules of its data (`_kind`)."""
        rule = self._tensors.get((key, dtype))
        if rule is None:
            rule = self._tensors[(key, dtype)] = (self._dtype_ok(key, dtype), _kind(key, dtype))
        return rule


@dataclass
class Gathered:
    """A block of samples read for the numpy pass: every token list and tensor data list in
    order, per sample its token count, whether its structure passes (keys, dtypes, lengths,
    shape, no sparse fields) and its `loss_fn_inputs` keys, per tensor its value rules."""

    token_lists: list[Any] = field(default_factory=list)
    token_counts: list[int] = field(default_factory=list)
    data_lists: list[Any] = field(default_factory=list)
    data_kinds: list[int] = field(default_factory=list)  # per tensor: _INT | _TARGETS | _WEIGHTS
    structure_ok: list[bool] = field(default_factory=list)
    layout: list[tuple[str, ...]] = field(default_factory=list)


# (a block of samples, the rules) -> the block read for the numpy pass.
Gather = Callable[[Sequence[Any], Rules], Gathered]


def gather_dicts(samples: Sequence[Any], rules: Rules) -> Gathered:
    """`Gathered` of schema-valid samples decoded as JSON objects."""
    out = Gathered()
    for sample in samples:
        chunks = sample["model_input"]["chunks"]
        n_tokens = 0
        for chunk in chunks:
            tokens = chunk["encoded_text"]["tokens"]
            out.token_lists.append(tokens)
            n_tokens += len(tokens)
        out.token_counts.append(n_tokens)
        tensors: dict[str, dict[str, Any]] = sample["loss_fn_inputs"]
        keys = tuple(tensors)
        out.layout.append(keys)
        good = rules.keys_ok(keys)
        for key, tensor in tensors.items():
            data = tensor["data"]
            allowed, kind = rules.tensor(key, tensor["dtype"])
            # More keys than data and dtype: a shape, or sparse fields (refused).
            if not allowed or len(data) != n_tokens or (len(tensor) > 2 and _odd(tensor)):
                good = False
            out.data_lists.append(data)
            out.data_kinds.append(kind)
        out.structure_ok.append(good)
    return out


def _checked_block(gathered: Gathered, vocab_size: int) -> list[SampleArrays | None] | None:
    """`checked_in_bulk` of a block of samples, once read."""
    token_lists, token_counts = gathered.token_lists, gathered.token_counts
    data_lists, data_kinds, layout = gathered.data_lists, gathered.data_kinds, gathered.layout
    structure_ok = np.asarray(gathered.structure_ok, dtype=bool)
    try:
        token_values = concatenated(token_lists, np.int64, exact_ints=True)
        data_values = concatenated(data_lists, np.float64, exact_ints=False)
    except (OverflowError, ValueError, TypeError):
        return None
    if token_values is None or data_values is None:
        return None
    tokens_ok = (token_values >= 0) & (token_values < vocab_size)
    values_ok = data_ok(data_values, data_lists, data_kinds, vocab_size)
    token_bounds = np.cumsum([0, *token_counts])
    sample_ok = structure_ok.copy()
    sample_ok &= reduce_ok(tokens_ok, token_bounds)
    data_counts = [len(d) for d in data_lists]
    data_bounds = np.cumsum([0, *data_counts])
    tensor_ok = reduce_ok(values_ok, data_bounds)
    tensors_per_sample = [len(keys) for keys in layout]
    tensor_bounds = np.cumsum([0, *tensors_per_sample])
    sample_ok &= reduce_ok(tensor_ok, tensor_bounds)
    with np.errstate(all="ignore"):
        data_as_int = data_values.astype(np.int64)
    result: list[SampleArrays | None] = []
    ok_list = sample_ok.tolist()
    t_bounds = token_bounds.tolist()
    d_bounds = data_bounds.tolist()
    tensor_at = 0
    for index, keys in enumerate(layout):
        if not ok_list[index]:
            result.append(None)
            tensor_at += len(keys)
            continue
        inputs: dict[str, np.ndarray] = {}
        targets = None
        for key in keys:
            start, end = d_bounds[tensor_at], d_bounds[tensor_at + 1]
            inputs[key] = data_values[start:end]
            if key == "target_tokens":
                targets = data_as_int[start:end]
            tensor_at += 1
        assert targets is not None  # `keys_ok` required it
        result.append((token_values[t_bounds[index] : t_bounds[index + 1]], targets, inputs))
    return result


def _kind(key: str, dtype: str) -> int:
    """The value rules of a `loss_fn_inputs` tensor: its dtype's, and its key's own."""
    kind = _INT if dtype == "int64" else 0
    if key == "target_tokens":
        kind |= _TARGETS
    elif key == "weights":
        kind |= _WEIGHTS
    return kind


def _odd(tensor: dict[str, Any]) -> bool:
    """Whether a tensor with keys besides data and dtype breaks a structure rule."""
    shape = tensor.get("shape")
    n_values = len(tensor["data"])
    if shape is not None and list(shape) != [n_values]:
        return True
    return _SPARSE[0] in tensor or _SPARSE[1] in tensor


def concatenated(lists: list[Any], dtype: type, exact_ints: bool) -> np.ndarray | None:
    """Every list's items in one array; None (for `exact_ints`) when an item is neither an int
    nor a string. `exact_ints` lists are token ids of a schema-valid body: their strings are
    the decimal digits its pattern admits, which `fromiter` parses as `token_array` does (one
    beyond int64 raises OverflowError)."""
    total = sum(map(len, lists))
    if exact_ints:
        # The per-sample checks refuse 3.0 with their own message: leave it to them.
        kinds = set(map(type, itertools.chain.from_iterable(lists)))
        if kinds - {int, str}:
            return None
    return np.fromiter(itertools.chain.from_iterable(lists), dtype=dtype, count=total)


def data_ok(values: np.ndarray, lists: list[Any], kinds: list[int], vocab_size: int) -> np.ndarray:
    """Per value: whether it passes its tensor's dtype rule and its key's own rule."""
    per_value = np.repeat(np.asarray(kinds, dtype=np.int8), [len(d) for d in lists])
    with np.errstate(all="ignore"):
        fits_int = (values == np.trunc(values)) & (np.abs(values) < _INT64_SAFE)
        fits_float32 = np.abs(values) <= _FLOAT32_MAX
    ok = np.where((per_value & _INT) != 0, fits_int, fits_float32)
    ok &= ((per_value & _TARGETS) == 0) | ((values >= 0) & (values < vocab_size))
    ok &= ((per_value & _WEIGHTS) == 0) | (values >= 0)
    return np.asarray(ok)


def reduce_ok(ok: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """`all` of `ok` over each `[bounds[i], bounds[i+1])` (True for an empty range); the last
    bound is `ok.size`."""
    starts, filled = bounds[:-1], np.diff(bounds) > 0
    reduced = np.ones(starts.size, dtype=bool)
    if filled.any():  # reduceat over the filled ranges alone: an empty one would take an item
        reduced[filled] = np.logical_and.reduceat(ok, starts[filled])
    return reduced
