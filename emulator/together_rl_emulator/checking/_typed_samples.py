"""Which typed samples (`_typed_body.py`) may break a sample rule, read a column at a time.

`_sample_batch.checked_in_bulk` reads each sample in a Python loop and builds every sample's
arrays. To refuse a bad batch only the verdict is needed, and when a block's samples share
their shape (the same `loss_fn_inputs` keys and dtypes, no `shape` or sparse fields: what a
batch usually is) each field can be read for the whole block by `map` in C: the token lists
of every chunk, then per key its tensors' data. The same value rules (`data_ok`) run over the
concatenated columns, and a sample is flagged when any of its rules may fail. Any other block
is read sample by sample (`gather_structs`). The flagged samples go through the per-sample
checks in order, so the first bad sample and its message are theirs.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from operator import attrgetter, itemgetter
from typing import Any

import msgspec
import msgspec.inspect
import numpy as np

from ._sample_batch import (
    Gathered,
    Rules,
    checked_with_rules,
    concatenated,
    data_ok,
    reduce_ok,
)

__all__ = ["BLOCK", "flagged_samples", "gather_structs"]

BLOCK = 2_000  # samples per block: each `map` or numpy call spans a block, holding the GIL

_CHUNKS = attrgetter("model_input.chunks")
_TOKENS = attrgetter("encoded_text.tokens")
_INPUTS = attrgetter("loss_fn_inputs")
_DATA = attrgetter("data")
_DTYPE = attrgetter("dtype")
_OPTIONAL = tuple(map(attrgetter, ("shape", "sparse_crow_indices", "sparse_col_indices")))


def flagged_samples(samples: Sequence[Any], vocab_size: int, rules: Rules) -> list[int] | None:
    """The indices, in order, of the samples that may break a rule (every other one passes
    them all), or None when the values cannot be carried by arrays (then check every sample)."""
    flagged: list[int] = []
    for start in range(0, len(samples), BLOCK):
        block = samples[start : start + BLOCK]
        sample_type: Any = type(block[0])
        ok = _block_ok(block, vocab_size, rules, _tokens_are_ints(sample_type))
        if ok is None:
            arrays = checked_with_rules(block, vocab_size, rules, gather_structs)
            if arrays is None:
                return None
            ok = np.asarray([checked is not None for checked in arrays], dtype=bool)
        flagged += (np.flatnonzero(~ok) + start).tolist()
    return flagged


def _block_ok(
    block: Sequence[Any], vocab_size: int, rules: Rules, ints_only: bool
) -> np.ndarray | None:
    """Per sample of a block of samples of one shape: whether it passes every rule; None
    for a block of mixed shapes (or values arrays cannot carry)."""
    chunks = list(map(_CHUNKS, block))
    chunk_counts = np.fromiter(map(len, chunks), dtype=np.int64, count=len(block))
    if (chunk_counts == 1).all():
        token_lists = list(map(_TOKENS, map(itemgetter(0), chunks)))
        token_counts = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(block))
    else:  # every sample has a chunk at least (the types say so): sum each sample's chunks
        token_lists = list(map(_TOKENS, itertools.chain.from_iterable(chunks)))
        list_counts = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
        token_counts = np.add.reduceat(list_counts, np.cumsum(chunk_counts) - chunk_counts)
    inputs = list(map(_INPUTS, block))
    layouts = set(map(tuple, inputs))
    if len(layouts) != 1:
        return None
    (keys,) = layouts
    if not rules.keys_ok(keys):
        return np.zeros(len(block), dtype=bool)
    try:
        tokens = concatenated(token_lists, np.int64, exact_ints=not ints_only)
        if tokens is None:
            return None
        counts = np.concatenate(([0], np.cumsum(token_counts)))
        ok = reduce_ok((tokens >= 0) & (tokens < vocab_size), counts)
        for key in keys:
            tensors = list(map(itemgetter(key), inputs))
            dtypes = set(map(_DTYPE, tensors))
            if len(dtypes) != 1:
                return None
            for get in _OPTIONAL:  # a shape or sparse field: read sample by sample
                if list(map(get, tensors)).count(msgspec.UNSET) != len(tensors):
                    return None
            allowed, kind = rules.tensor(key, dtypes.pop())
            if not allowed:
                return np.zeros(len(block), dtype=bool)
            data = list(map(_DATA, tensors))
            lengths = np.fromiter(map(len, data), dtype=np.int64, count=len(block))
            values = concatenated(data, np.float64, exact_ints=False)
            assert values is not None
            per_value = data_ok(values, [values], [kind], vocab_size)
            ok &= (lengths == token_counts) & reduce_ok(
                per_value, np.concatenate(([0], np.cumsum(lengths)))
            )
    except (OverflowError, ValueError, TypeError):
        return None
    return ok


@functools.cache
def _tokens_are_ints(sample_type: Any) -> bool:
    """Whether the type's token lists hold ints only (no type check of each token needed)."""
    info: Any = msgspec.inspect.type_info(sample_type)
    try:
        for field in ("model_input", "chunks", "encoded_text", "tokens"):
            info = next(f.type for f in info.fields if f.name == field)
            if isinstance(info, msgspec.inspect.ListType) and field != "tokens":
                info = info.item_type
        return isinstance(info.item_type, msgspec.inspect.IntType)
    except (StopIteration, AttributeError):
        return False


def gather_structs(samples: Sequence[Any], rules: Rules) -> Gathered:
    """`_sample_batch.gather_dicts` of typed samples (an absent optional field is `UNSET`)."""
    out = Gathered()
    unset = msgspec.UNSET
    for sample in samples:
        n_tokens = 0
        for chunk in sample.model_input.chunks:
            tokens = chunk.encoded_text.tokens
            out.token_lists.append(tokens)
            n_tokens += len(tokens)
        out.token_counts.append(n_tokens)
        tensors = sample.loss_fn_inputs
        keys = tuple(tensors)
        out.layout.append(keys)
        good = rules.keys_ok(keys)
        for key, tensor in tensors.items():
            data = tensor.data
            allowed, kind = rules.tensor(key, tensor.dtype)
            if (
                not allowed
                or len(data) != n_tokens
                or (tensor.shape is not unset and tensor.shape != [n_tokens])
                or tensor.sparse_crow_indices is not unset
                or tensor.sparse_col_indices is not unset
            ):
                good = False
            out.data_lists.append(data)
            out.data_kinds.append(kind)
        out.structure_ok.append(good)
    return out
