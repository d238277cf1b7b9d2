"""The requests of forward-backward and custom-forward-backward: the body validated (the spec's
JSON Schema first, then the rules a schema cannot express) and turned into what the engine
computes on. The other kinds' requests are in `_simple_requests.py`, the number checks of
tokens and tensors in `_tensor_values.py`.

Every refusal is a 400 naming the field path (`samples[2].loss_fn_inputs.advantages.dtype`). The
loss-input rules (required keys per loss type, dtypes per key, exclusive keys, tensor length)
are the spec's `x-` keywords, read by `_spec.py` like every default, bound and choice here; a
rule whose `x-source` is `emulator` says so in its message. Nothing here imports the math.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base import (
    LOSS_INPUTS,
    LOSS_PARAM_DEFAULTS,
    PARAMS_KEYS,
    ApiError,
    emulator_rule,
    invalid,
    params_schema,
)
from ._body_scan import FLOATS, INTS, BodyScan, scan_body, skeleton
from ._loss_request import validated_loss
from ._sample_batch import checked_in_bulk
from ._schema_blocks import valid_in_blocks
from ._tensor_values import require_all, tensor_values, token_array
from ._validation import valid_apart_from_bulk_items, validate_schema

__all__ = [
    "ForwardBackwardRequest",
    "RequiredInput",
    "ValidatedSample",
    "forward_backward_request",
    "validate_forward_backward",
]

# --------------------------------------------------------------------------------------------
# Forward-backward

# Whether each loss-input rule is this emulator's own choice (`x-source: emulator`).
_INPUTS_RULE = {
    keyword: emulator_rule(LOSS_INPUTS.inputs_schema, keyword)
    for keyword in ("x-input-dtypes", "x-exclusive-inputs", "x-tensor-length")
}
_REQUIRED_RULE = emulator_rule(LOSS_INPUTS.loss_config_schema, "x-required-inputs")
_WHEN_POSITIVE = "x-requires-inputs-when-positive"


@dataclass(frozen=True)
class RequiredInput:
    """A `loss_fn_inputs` key a sample must send, why (appended to `is required by <loss>`),
    and whether the rule is this emulator's own."""

    key: str
    why: str = ""
    emulator_rule: bool = False


@dataclass(frozen=True)
class ValidatedSample:
    tokens: np.ndarray  # int64 (N,): the model input, chunks concatenated
    targets: np.ndarray  # int64 (N,): loss_fn_inputs.target_tokens
    inputs: dict[str, np.ndarray]  # every loss_fn_inputs key -> float64 (N,), target_tokens too
    routed_experts_key: str | None = None  # router replay (`_routed_experts.py`)


@dataclass(frozen=True)
class ForwardBackwardRequest:
    samples: list[ValidatedSample]
    loss: dict[str, Any]  # `type` and its own params object if sent (others are ignored)
    forward_only: bool
    return_loss_fn_outputs: bool


def validate_forward_backward(
    body: object, vocab_size: int, scan: BodyScan | None = None
) -> ForwardBackwardRequest:
    """Validate a `ForwardBackwardBody` fully and return it as arrays ready for the math.

    Schema first, then: the loss type and its params object (only the one matching `loss.type`
    is read, a params object of another loss is accepted and ignored; `LOSS_TYPE_UNSPECIFIED`
    refused; `dro_params` required for DRO; CISPO low <= high; bounds and finiteness re-checked),
    then per sample: the `loss_fn_inputs` the spec's `x-required-inputs` names for the loss type
    (and `x-requires-inputs-when-positive`: `reference_logprobs` for GRPO with beta > 0), the
    `x-exclusive-inputs` groups (`weights` xor `mask`), the `x-input-dtypes` of each known key,
    no sparse fields, `shape == [len(data)]`, every tensor as long as the model input
    (`x-tensor-length`), finite numbers that fit their dtype, int64 tensors integral,
    non-negative weights, token ids and target tokens inside `[0, vocab_size)`.

    Unknown `loss_fn_inputs` keys are accepted (as the official SDK sends them) and checked like
    any tensor. `reference_logprobs` outside GRPO is treated the same way: accepted, checked as a
    float32 tensor, and ignored by the math.

    `scan` is the body's `scan_body` if the caller made it (made here otherwise): when the body
    passes the schema apart from its token and tensor lists, and the scan vouches for those
    (ints, floats), the full schema validation is skipped; any doubt runs it (same errors).
    """
    bulk = None
    scan = scan_body(body) if scan is None else scan
    # A list the scan left alone (a short one) rules the bulk path out: skip its schema pass.
    bulk_lists: list[tuple[bool, Any]] = []
    for found in _bulk_lists(body):
        if id(found[1]) not in scan.lists:
            break
        bulk_lists.append(found)
    else:
        if scan.arrays_in_body:
            view = skeleton(body, scan, {id(values) for _, values in bulk_lists})
        else:
            view = body
        if valid_apart_from_bulk_items("ForwardBackwardBody", view):
            bulk = _bulk_arrays(bulk_lists, scan)
    if bulk is None:
        if not valid_in_blocks("ForwardBackwardBody", body, "samples"):
            validate_schema("ForwardBackwardBody", body)
        bulk = {}
    assert isinstance(body, dict)  # guaranteed by the schema
    return forward_backward_request(body, vocab_size, bulk)


def forward_backward_request(
    body: dict[str, Any], vocab_size: int, bulk: dict[int, np.ndarray] | None = None
) -> ForwardBackwardRequest:
    """The request of a body valid against the schema (`validate_forward_backward` after its
    schema check; `bulk` as `_validated_samples` takes it)."""
    loss: dict[str, Any] = body["loss"]
    try:
        loss = validated_loss(loss)
        loss_type = loss["type"]
        required = _required_inputs(loss)
        samples = _validated_samples(body["samples"], loss_type, required, vocab_size, bulk or {})
    except (OverflowError, ValueError, TypeError, RecursionError) as exc:
        # A value the checks above did not foresee; refuse it rather than answer 5xx.
        raise invalid(None, "the request holds a value that cannot be used as a number") from exc
    return ForwardBackwardRequest(
        samples=samples,
        loss=dict(loss),
        forward_only=bool(body.get("forward_only", False)),
        return_loss_fn_outputs=bool(body.get("return_loss_fn_outputs", False)),
    )


def _validated_samples(
    raw: list[dict[str, Any]],
    loss_type: str,
    required: list[RequiredInput],
    vocab_size: int,
    bulk: dict[int, np.ndarray],
) -> list[ValidatedSample]:
    """Every sample checked: in one vectorised pass (`_sample_batch.py`) when the body's lists
    are plain, then one by one only where that pass flags a sample, so the first bad sample
    and its message are always `_validate_sample`'s."""
    arrays = None
    if not bulk:
        arrays = checked_in_bulk(
            raw,
            vocab_size,
            lambda keys: _keys_ok(keys, required),
            lambda key, dtype: dtype in LOSS_INPUTS.dtypes.get(key, (dtype,)),
        )
    if arrays is None:
        return [
            _validate_sample(index, sample, loss_type, required, vocab_size, bulk)
            for index, sample in enumerate(raw)
        ]
    return [
        _validate_sample(index, sample, loss_type, required, vocab_size)
        if checked is None
        else ValidatedSample(*checked, routed_experts_key=sample.get("routed_experts_key"))
        for index, (sample, checked) in enumerate(zip(raw, arrays, strict=True))
    ]


def _keys_ok(keys: tuple[str, ...], required: list[RequiredInput]) -> bool:
    """Whether `loss_fn_inputs` with these keys has every required input, no two exclusive."""
    present = set(keys)
    return all(need.key in present for need in required) and all(
        len(present.intersection(group)) <= 1 for group in LOSS_INPUTS.exclusive
    )


def _bulk_lists(body: object) -> Iterator[tuple[bool, Any]]:
    """`(is a token list, the list)` for every place where `BULK_ARRAYS` sit in a
    forward-backward body (token lists, tensor data), whatever else the body holds."""
    samples = body.get("samples") if isinstance(body, dict) else None
    for sample in samples if isinstance(samples, list) else ():
        if not isinstance(sample, dict):
            continue
        model_input = sample.get("model_input")
        chunks = model_input.get("chunks") if isinstance(model_input, dict) else None
        for chunk in chunks if isinstance(chunks, list) else ():
            text = chunk.get("encoded_text") if isinstance(chunk, dict) else None
            if isinstance(text, dict) and "tokens" in text:
                yield True, text["tokens"]
        tensors = sample.get("loss_fn_inputs")
        for tensor in tensors.values() if isinstance(tensors, dict) else ():
            if isinstance(tensor, dict) and "data" in tensor:
                yield False, tensor["data"]


def _bulk_arrays(
    bulk_lists: list[tuple[bool, Any]], scan: BodyScan
) -> dict[int, np.ndarray] | None:
    """The token and tensor lists (`_bulk_lists`) of a skeleton-valid body as arrays, by
    identity of the list, when the scan vouches for every item (what the schema's items say:
    token ids JSON ints in [0, 2**63), tensor data JSON numbers); None when it cannot for one
    of them."""
    arrays: dict[int, np.ndarray] = {}
    for is_tokens, values in bulk_lists:
        numbers = scan.lists.get(id(values))
        if numbers is None:
            return None
        if is_tokens and (numbers.kind != INTS or numbers.values.min() < 0):
            return None
        # NaN or Infinity (a lenient decoder's) are left to the schema's message.
        if numbers.kind == FLOATS and not np.isfinite(numbers.values).all():
            return None
        arrays[id(values)] = numbers.values
    return arrays


def _required_inputs(loss: dict[str, Any]) -> list[RequiredInput]:
    """The `loss_fn_inputs` keys every sample must send for this (validated) loss."""
    loss_type: str = loss["type"]
    required = [RequiredInput(k, "", _REQUIRED_RULE) for k in LOSS_INPUTS.required[loss_type]]
    params_key = PARAMS_KEYS[loss_type]
    if params_key is None:
        return required
    params: dict[str, Any] = loss.get(params_key, {})
    declared = params_schema(params_key).get("properties", {})
    for name, keys in LOSS_INPUTS.required_when_positive.get(params_key, {}).items():
        value = params.get(name, LOSS_PARAM_DEFAULTS[params_key].get(name, 0))
        if isinstance(value, int | float) and value > 0:
            own = emulator_rule(declared[name], _WHEN_POSITIVE)
            why = f" when loss.{params_key}.{name} > 0"
            present = {r.key for r in required}
            required += [RequiredInput(key, why, own) for key in keys if key not in present]
    return required


def _validate_sample(
    index: int,
    sample: dict[str, Any],
    loss_type: str,
    required: list[RequiredInput],
    vocab_size: int,
    bulk: dict[int, np.ndarray] | None = None,
) -> ValidatedSample:
    """One sample's rules; `bulk` holds lists already converted (`_bulk_arrays`)."""
    bulk = bulk or {}
    base = f"samples[{index}]"
    chunks: list[dict[str, Any]] = sample["model_input"]["chunks"]
    chunk_tokens = [chunk["encoded_text"]["tokens"] for chunk in chunks]
    token_list = chunk_tokens[0] if len(chunk_tokens) == 1 else [t for c in chunk_tokens for t in c]
    n_tokens = len(token_list)

    # Structure first (cheap), values after.
    tensors: dict[str, dict[str, Any]] = sample["loss_fn_inputs"]
    missing = [need for need in required if need.key not in tensors]
    if missing:
        raise _missing_inputs(f"{base}.loss_fn_inputs", loss_type, missing)
    for group in LOSS_INPUTS.exclusive:
        sent = [key for key in group if key in tensors]
        if len(sent) > 1:
            raise invalid(
                f"{base}.loss_fn_inputs",
                f"{' and '.join(sent)} are mutually exclusive; send only one",
                emulator_rule=_INPUTS_RULE["x-exclusive-inputs"],
            )
    for key, tensor in tensors.items():
        _check_tensor_structure(f"{base}.loss_fn_inputs.{key}", key, tensor, n_tokens)

    tokens = token_array(
        f"{base}.model_input", chunk_tokens, token_list, vocab_size, bulk.get(id(token_list))
    )
    inputs = {
        key: tensor_values(f"{base}.loss_fn_inputs.{key}", tensor, bulk.get(id(tensor["data"])))
        for key, tensor in tensors.items()
    }
    targets_path = f"{base}.loss_fn_inputs.target_tokens"
    targets = inputs["target_tokens"]
    require_all(
        targets_path,
        targets,
        (targets >= 0) & (targets < vocab_size),
        lambda v: f"target token {v:.0f} is outside the vocabulary [0, {vocab_size})",
    )
    if "weights" in inputs:
        weights = inputs["weights"]
        if weights.min() < 0:
            require_all(
                f"{base}.loss_fn_inputs.weights",
                weights,
                weights >= 0,
                lambda v: f"weights must be non-negative, got {v!r}",
            )
    return ValidatedSample(
        tokens=tokens,
        targets=targets.astype(np.int64),
        inputs=inputs,
        routed_experts_key=sample.get("routed_experts_key"),
    )


def _missing_inputs(path: str, loss_type: str, missing: list[RequiredInput]) -> ApiError:
    """400 at the first missing input (`path.<key>`) whose message names every input the
    sample lacks, so `loss_fn_inputs: {}` says what to send rather than that it is empty."""
    first = missing[0]
    reason = f"is required by {loss_type}{first.why}"
    if len(missing) > 1:
        names = [f"{need.key}{need.why and f' ({need.why.strip()})'}" for need in missing]
        listed = ", ".join(names[:-1]) + f" and {names[-1]}"
        reason += f"; {path} lacks {listed}"
    return invalid(f"{path}.{first.key}", reason, emulator_rule=first.emulator_rule)


def _check_tensor_structure(path: str, key: str, tensor: dict[str, Any], n_tokens: int) -> None:
    for sparse in ("sparse_crow_indices", "sparse_col_indices"):
        if sparse in tensor:
            raise invalid(f"{path}.{sparse}", "unsupported for training operations; omit it")
    dtype = tensor["dtype"]
    allowed = LOSS_INPUTS.dtypes.get(key)
    if allowed is not None and dtype not in allowed:
        expected = " or ".join(f"'{d}'" for d in allowed)
        raise invalid(
            f"{path}.dtype",
            f"{key} must have dtype {expected}, got '{dtype}'",
            emulator_rule=_INPUTS_RULE["x-input-dtypes"],
        )
    length = len(tensor["data"])
    shape = tensor.get("shape")
    own_rule = _INPUTS_RULE["x-tensor-length"]
    if shape is not None and list(shape) != [length]:
        raise invalid(
            f"{path}.shape",
            f"training tensors are 1-D: shape must be [{length}] (the length of data), got {shape}",
            emulator_rule=own_rule,
        )
    if length != n_tokens:
        raise invalid(
            path,
            f"has {length} values but the sample's model input has {n_tokens} tokens",
            emulator_rule=own_rule,
        )
