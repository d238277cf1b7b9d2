"""Samples: the builder, and the check of any sample against a loss (the spec's rules)."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from together_rl_client.models import DType

from ._errors import InvalidRequestError
from ._fields import EXCLUSIVE_INPUTS, INPUT_DTYPES
from ._schema import all_of_type, invalid

__all__ = ["Sample", "as_int_vector", "normalize_samples", "wire_array"]

_INT64, _FLOAT32 = DType.INT64.value, DType.FLOAT32.value
_PER_TOKEN_INPUTS = ("logprobs", "advantages", "reference_logprobs", "weights")


def wire_array(array: Any) -> Any:
    """An array orjson writes as the official SDK's ``tolist()``: float64 or int64."""
    kind = array.dtype.kind
    if kind == "f":
        return np.ascontiguousarray(array, dtype=np.float64)
    if kind in "iub":
        return np.ascontiguousarray(array, dtype=np.int64)
    raise InvalidRequestError(f"unsupported array dtype {array.dtype}")


def as_int_vector(name: str, values: Any) -> Any:
    """Token ids (a list or a 1-D integer array) as an int64 array."""
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise invalid(name, "must be one-dimensional")
        if values.dtype.kind not in "iub":
            raise invalid(name, f"must hold integers, got {values.dtype}")
        return values.astype(np.int64, copy=False)
    tokens = list(values)
    if not all_of_type(tokens, numbers.Integral):
        bad = next(t for t in tokens if isinstance(t, bool) or not isinstance(t, numbers.Integral))
        raise invalid(name, f"must hold integers, got {bad!r}")
    return np.asarray(tokens, dtype=np.int64)


def _shifted(name: str, values: Any, prompt_slots: int, length: int) -> Any:
    """``length`` values (or one number) after ``prompt_slots`` masked slots of 0.0."""
    if not (isinstance(values, numbers.Real) and not isinstance(values, bool)):  # not one number
        if isinstance(values, np.ndarray) and values.ndim != 1:
            raise invalid(name, "must be one-dimensional")
        values = np.asarray(
            values if isinstance(values, np.ndarray) else list(values), dtype=np.float64
        )
        if len(values) != length:
            raise invalid(
                name, f"must have one value per completion token ({length}), got {len(values)}"
            )
    out = np.zeros(prompt_slots + length, dtype=np.float64)
    out[prompt_slots:] = values
    return out


class Sample:
    """One training sample: model input tokens and per-slot loss tensors, from
    :meth:`from_completion`, :meth:`from_sequence`, or aligned ``tokens`` and ``loss_fn_inputs``
    (``TensorData`` dicts, numpy arrays or lists). A wire dict is accepted wherever a Sample is."""

    __slots__ = ("loss_fn_inputs", "routed_experts_key", "tokens")

    def __init__(
        self,
        tokens: Sequence[int] | Any,
        loss_fn_inputs: Mapping[str, Any],
        *,
        routed_experts_key: str | None = None,
    ) -> None:
        self.tokens = as_int_vector("model_input.tokens", tokens)
        self.loss_fn_inputs = dict(loss_fn_inputs)
        self.routed_experts_key = routed_experts_key

    @classmethod
    def from_completion(
        cls,
        prompt_tokens: Sequence[int] | Any,
        completion_tokens: Sequence[int] | Any,
        *,
        logprobs: Sequence[float] | Any | None = None,
        advantages: float | Sequence[float] | Any | None = None,
        reference_logprobs: Sequence[float] | Any | None = None,
        weights: float | Sequence[float] | Any | None = None,
        routed_experts_key: str | None = None,
    ) -> Sample:
        """``model_input`` ``(prompt + completion)[:-1]``, ``target_tokens`` ``[1:]``; per-token
        values fill the completion's slots, prompt slots masked (``weights`` 0, others 0.0);
        ``advantages`` may be one number; ``weights`` defaults to 1.0."""
        prompt = as_int_vector("prompt_tokens", prompt_tokens)
        completion = as_int_vector("completion_tokens", completion_tokens)
        for name, tokens in (("prompt_tokens", prompt), ("completion_tokens", completion)):
            if len(tokens) < 1:
                raise invalid(name, "must not be empty")
        full = np.concatenate([prompt, completion])
        inputs: dict[str, Any] = {"target_tokens": full[1:]}
        per_token = (logprobs, advantages, reference_logprobs, 1.0 if weights is None else weights)
        for name, values in zip(_PER_TOKEN_INPUTS, per_token, strict=True):
            if values is not None:
                inputs[name] = _shifted(name, values, len(prompt) - 1, len(completion))
        return cls(full[:-1], inputs, routed_experts_key=routed_experts_key)

    @classmethod
    def from_sequence(
        cls,
        prompt_tokens: Sequence[int] | Any,
        sequence: Any,
        *,
        advantages: float | Sequence[float] | Any | None = None,
        reference_logprobs: Sequence[float] | Any | None = None,
        weights: float | Sequence[float] | Any | None = None,
    ) -> Sample:
        """:meth:`from_completion` of a sampled ``sequence`` (ours or the SDK's): its tokens,
        ``logprobs`` and ``routed_experts_key`` (the training pass replays its expert routing)."""
        tokens = np.asarray(list(sequence.tokens) if not isinstance(sequence.tokens, np.ndarray)
                            else sequence.tokens, dtype=np.int64)  # fmt: skip
        logprobs = getattr(sequence, "logprobs", None)
        return cls.from_completion(
            prompt_tokens,
            tokens,
            logprobs=None if logprobs is None else np.asarray(logprobs, dtype=np.float64),
            advantages=advantages,
            reference_logprobs=reference_logprobs,
            weights=weights,
            routed_experts_key=getattr(sequence, "routed_experts_key", None),
        )

    def to_wire(self) -> dict[str, Any]:
        """The wire ``Sample`` dict (tensors stay numpy arrays; the encoder serialises them)."""
        tensors = dict(self.loss_fn_inputs)
        for key, value in tensors.items():
            if not isinstance(value, Mapping):
                tensors[key] = {"data": value, "dtype": INPUT_DTYPES.get(key, (_FLOAT32,))[0]}
        wire: dict[str, Any] = {
            "model_input": {"chunks": [{"encoded_text": {"tokens": self.tokens}}]},
            "loss_fn_inputs": tensors,
        }
        if self.routed_experts_key is not None:
            wire["routed_experts_key"] = self.routed_experts_key
        return wire

    def __len__(self) -> int:
        return len(self.tokens)

    def __repr__(self) -> str:
        return f"Sample(tokens={len(self.tokens)}, inputs={sorted(self.loss_fn_inputs)})"


def _tensor(label: str, key: str, value: Any, n_tokens: int) -> dict[str, Any]:
    """One ``loss_fn_inputs`` value as a TensorData dict of ``n_tokens`` values."""
    known = INPUT_DTYPES.get(key)
    mapping = isinstance(value, Mapping)
    data = value.get("data") if mapping else value
    if mapping and (data is None or value.get("dtype") is None):
        raise invalid(label, "must have 'data' and 'dtype'")
    if isinstance(data, np.ndarray):
        if data.ndim != 1:
            raise invalid(label, "must be one-dimensional")
        floats, data = data.dtype.kind == "f", wire_array(data)
    elif isinstance(data, list | tuple):
        floats = known is None and any(isinstance(v, float) for v in data)
    else:
        kind = f"a TensorData dict, a numpy array or a list of numbers, got {type(data).__name__}"
        raise invalid(label, f"must be {kind}")
    dtype = value["dtype"] if mapping else known[0] if known else _FLOAT32 if floats else _INT64
    if known is not None and dtype not in known:
        raise invalid(f"{label}.dtype", f"must be one of {sorted(known)}, got {dtype!r}")
    if len(data) != n_tokens:
        raise invalid(label, f"has {len(data)} values but the model input has {n_tokens} tokens")
    return {**value, "data": data} if mapping else {"data": data, "dtype": dtype}


def _token_count(label: str, model_input: Any) -> tuple[dict[str, Any], int]:
    """``model_input`` (numpy tokens in wire form) and its token count."""
    if not isinstance(model_input, Mapping) or not isinstance(model_input.get("chunks"), list):
        raise InvalidRequestError(f"{label}.model_input.chunks must be a list", field=label)
    total, chunks = 0, []
    for index, chunk in enumerate(model_input["chunks"]):
        encoded = chunk.get("encoded_text") if isinstance(chunk, Mapping) else None
        if not isinstance(encoded, Mapping) or encoded.get("tokens") is None:
            raise invalid(f"{label}.model_input.chunks[{index}].encoded_text.tokens", "is required")
        tokens = encoded["tokens"]
        if isinstance(tokens, np.ndarray):
            chunk = {**chunk, "encoded_text": {**encoded, "tokens": wire_array(tokens)}}
        total += len(tokens)
        chunks.append(chunk)
    return {**model_input, "chunks": chunks}, total


def _normalize_sample(
    index: int, sample: Any, required: frozenset[str], needed_by: str
) -> dict[str, Any]:
    label = f"samples[{index}]"
    if isinstance(sample, Sample):
        sample = sample.to_wire()
    elif not isinstance(sample, Mapping) and hasattr(sample, "to_dict"):
        sample = sample.to_dict()
    if not isinstance(sample, Mapping):
        kind = type(sample).__name__
        raise invalid(label, f"must be a together_rl.Sample or a wire dict, got {kind}")
    model_input, n_tokens = _token_count(label, sample.get("model_input"))
    inputs, prefix = sample.get("loss_fn_inputs"), f"{label}.loss_fn_inputs"
    if not isinstance(inputs, Mapping):
        raise invalid(prefix, "must be an object")
    if missing := sorted(required - inputs.keys()):
        reason = f"is required by {needed_by} (missing: {', '.join(missing)})"
        raise invalid(f"{prefix}.{missing[0]}", reason)
    for group in EXCLUSIVE_INPUTS:
        present = [key for key in group if key in inputs]
        if len(present) > 1:
            field = f"{prefix}.{present[-1]}"
            raise InvalidRequestError(f"{prefix} has both {' and '.join(present)}", field=field)
    tensors = {key: _tensor(f"{prefix}.{key}", key, v, n_tokens) for key, v in inputs.items()}
    return {**sample, "model_input": model_input, "loss_fn_inputs": tensors}


def normalize_samples(
    samples: Any, required: frozenset[str], needed_by: str
) -> list[dict[str, Any]]:
    """The checked wire dicts of ``samples``, with the inputs ``needed_by`` requires."""
    if isinstance(samples, Sample | Mapping) or not hasattr(samples, "__iter__"):
        raise invalid("samples", "must be a list of samples")
    listed = list(samples)
    if not listed:
        raise invalid("samples", "must not be empty")
    return [_normalize_sample(i, s, required, needed_by) for i, s in enumerate(listed)]
