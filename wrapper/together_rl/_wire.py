"""Request bodies of forward-backward and their encoding, on the hot path.

Bodies are built as plain dicts straight from the builders (numpy arrays stay arrays and orjson
serialises them natively), not through the generated attrs models, whose per-element loops cost
on 64 x 2048 batches (``docs/benchmarks.md`` measures both paths side by side).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from together_rl_client.models import DType

from ._errors import InvalidRequestError
from ._numpy import is_array, np
from ._samples import INPUT_DTYPES, Sample
from .losses import Loss, normalize_loss

__all__ = [
    "build_forward_backward",
    "encode_body",
    "encode_json",
    "find_non_finite",
    "normalize_sample",
    "sample_list",
]
_JSON_OPTIONS = orjson.OPT_SERIALIZE_NUMPY
_NULL = re.compile(rb"null")


def _wire_array(array: Any) -> Any:
    """A numpy array in the form orjson serialises exactly as the official SDK's ``tolist()``
    would: float64 for floats (a float32 0.1 goes out as 0.10000000149011612), int64 otherwise."""
    kind = array.dtype.kind
    if kind == "f":
        return np.ascontiguousarray(array, dtype=np.float64)
    if kind in "iub":
        return np.ascontiguousarray(array, dtype=np.int64)
    raise InvalidRequestError(f"unsupported array dtype {array.dtype}")


def _tensor(label: str, key: str, value: Any) -> tuple[dict[str, Any], int]:
    """Normalise one ``loss_fn_inputs`` value into a TensorData dict; return it and its length."""
    if isinstance(value, Mapping):
        data = value.get("data")
        dtype = value.get("dtype")
        if data is None or dtype is None:
            raise InvalidRequestError(f"{label} must have 'data' and 'dtype'", field=label)
        if is_array(data):
            if data.ndim != 1:
                raise InvalidRequestError(f"{label}.data must be one-dimensional", field=label)
            value = {**value, "data": _wire_array(data)}
        elif not isinstance(data, list | tuple):
            raise InvalidRequestError(f"{label}.data must be a list of numbers", field=label)
        tensor = value if isinstance(value, dict) else dict(value)
    elif is_array(value):
        if value.ndim != 1:
            raise InvalidRequestError(f"{label} must be one-dimensional", field=label)
        known = INPUT_DTYPES.get(key)
        if known is None:
            dtype = DType.FLOAT32.value if value.dtype.kind == "f" else DType.INT64.value
        else:
            dtype = known[0]
        tensor = {"data": _wire_array(value), "dtype": dtype}
    elif isinstance(value, list | tuple):
        known = INPUT_DTYPES.get(key)
        if known is None:
            floats = any(isinstance(v, float) for v in value)
            dtype = DType.FLOAT32.value if floats else DType.INT64.value
        else:
            dtype = known[0]
        tensor = {"data": value, "dtype": dtype}
    else:
        raise InvalidRequestError(
            f"{label} must be a TensorData dict, a numpy array or a list, got "
            f"{type(value).__name__}",
            field=label,
        )
    allowed = INPUT_DTYPES.get(key)
    if allowed is not None and tensor["dtype"] not in allowed:
        raise InvalidRequestError(
            f"{label}.dtype must be one of {sorted(allowed)}, got {tensor['dtype']!r}",
            field=f"{label}.dtype",
        )
    return tensor, len(tensor["data"])


def _token_count(label: str, model_input: Any) -> tuple[Any, int]:
    if not isinstance(model_input, Mapping) or not isinstance(model_input.get("chunks"), list):
        raise InvalidRequestError(f"{label}.model_input.chunks must be a list", field=label)
    total = 0
    chunks = model_input["chunks"]
    changed = False
    new_chunks = []
    for index, chunk in enumerate(chunks):
        encoded = chunk.get("encoded_text") if isinstance(chunk, Mapping) else None
        tokens = encoded.get("tokens") if isinstance(encoded, Mapping) else None
        field = f"{label}.model_input.chunks[{index}].encoded_text.tokens"
        if tokens is None:
            raise InvalidRequestError(f"{field} is required", field=field)
        if is_array(tokens) and isinstance(encoded, Mapping):
            chunk = {**chunk, "encoded_text": {**encoded, "tokens": _wire_array(tokens)}}
            changed = True
        total += len(tokens)
        new_chunks.append(chunk)
    if changed:
        model_input = {**model_input, "chunks": new_chunks}
    return model_input, total


def normalize_sample(index: int, sample: Any, loss: Loss) -> dict[str, Any]:
    """Check one sample against the loss and return its wire dict (the same dict when nothing
    needed converting)."""
    label = f"samples[{index}]"
    if isinstance(sample, Sample):
        sample = sample.to_wire()
    elif not isinstance(sample, Mapping) and hasattr(sample, "to_dict"):
        sample = sample.to_dict()
    if not isinstance(sample, Mapping):
        raise InvalidRequestError(
            f"{label} must be a together_rl.Sample or a wire dict, got {type(sample).__name__}",
            field=label,
        )
    model_input, n_tokens = _token_count(label, sample.get("model_input"))
    inputs = sample.get("loss_fn_inputs")
    if not isinstance(inputs, Mapping):
        field = f"{label}.loss_fn_inputs"
        raise InvalidRequestError(f"{field} must be an object", field=field)
    missing = sorted(loss.required_sample_inputs() - inputs.keys())
    if missing:
        field = f"{label}.loss_fn_inputs.{missing[0]}"
        raise InvalidRequestError(
            f"{field} is required by {loss.wire_type} (missing: {', '.join(missing)})", field=field
        )
    if "weights" in inputs and "mask" in inputs:
        field = f"{label}.loss_fn_inputs.mask"
        raise InvalidRequestError(f"{label}.loss_fn_inputs has both weights and mask", field=field)
    tensors: dict[str, Any] = {}
    for key, value in inputs.items():
        field = f"{label}.loss_fn_inputs.{key}"
        tensor, length = _tensor(field, key, value)
        if length != n_tokens:
            raise InvalidRequestError(
                f"{field} has {length} values but the model input has {n_tokens} tokens",
                field=field,
            )
        tensors[key] = tensor
    wire = dict(sample)
    wire["model_input"] = model_input
    wire["loss_fn_inputs"] = tensors
    return wire


def _first_non_finite(values: Any) -> tuple[int, str] | None:
    if is_array(values):
        if values.dtype.kind != "f":
            return None
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size == 0:
            return None
        position = int(bad[0])
        return position, "NaN" if math.isnan(values[position]) else "Infinity"
    for position, value in enumerate(values):
        if isinstance(value, float) and not math.isfinite(value):
            return position, "NaN" if math.isnan(value) else "Infinity"
    return None


def find_non_finite(body: Mapping[str, Any]) -> InvalidRequestError | None:
    """The error naming the first non-finite number of a body, if there is one."""
    for index, sample in enumerate(body.get("samples") or ()):
        for key, tensor in sample["loss_fn_inputs"].items():
            found = _first_non_finite(tensor["data"])
            if found is not None:
                field = f"samples[{index}].loss_fn_inputs.{key}"
                return InvalidRequestError(
                    f"{field} contains {found[1]} (at position {found[0]}); JSON cannot carry "
                    "non-finite numbers",
                    field=field,
                )
    return None


def sample_list(samples: Any) -> Sequence[Any]:
    """``samples`` as a non-empty sequence (an iterable is listed; a single sample is refused)."""
    if isinstance(samples, Sample | Mapping) or not hasattr(samples, "__iter__"):
        raise InvalidRequestError("samples must be a list of samples", field="samples")
    listed: Sequence[Any] = samples if isinstance(samples, Sequence) else list(samples)
    if len(listed) == 0:
        raise InvalidRequestError("samples must not be empty", field="samples")
    return listed


def build_forward_backward(
    samples: Sequence[Any] | Any,
    loss: Loss | Mapping[str, Any],
    *,
    forward_only: bool = False,
    return_loss_fn_outputs: bool = False,
) -> dict[str, Any]:
    """The checked wire body of a forward-backward request (flags only when set, as the
    official SDK sends them)."""
    if hasattr(loss, "to_dict") and not isinstance(loss, Loss | Mapping):
        loss = loss.to_dict()
    loss_wire, builder = normalize_loss(loss)
    samples = sample_list(samples)
    body: dict[str, Any] = {
        "samples": [normalize_sample(i, sample, builder) for i, sample in enumerate(samples)],
        "loss": loss_wire,
    }
    if forward_only:
        body["forward_only"] = True
    if return_loss_fn_outputs:
        body["return_loss_fn_outputs"] = True
    return body


def encode_body(body: Mapping[str, Any]) -> bytes:
    """orjson-encode an operation body, refusing non-finite numbers in sample tensors (orjson
    would silently write them as null; the other bodies' builders check their numbers)."""
    try:
        payload = orjson.dumps(body, option=_JSON_OPTIONS)
    except orjson.JSONEncodeError as exc:
        raise InvalidRequestError(f"the request body cannot be encoded as JSON: {exc}") from exc
    if _NULL.search(payload):  # a regex scans 5 MB about 2.5x faster than `b"null" in`
        error = find_non_finite(body)
        if error is not None:
            raise error
    return payload


def encode_json(value: Any) -> bytes:
    """orjson-encode a small body (sessions, model resources)."""
    return orjson.dumps(value, option=_JSON_OPTIONS)
