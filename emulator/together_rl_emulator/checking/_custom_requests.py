"""The requests of custom-forward-backward: samples checked like forward-backward's
(`_requests.py`), one caller-computed gradient per sample."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base import invalid
from ._body_scan import BodyScan
from ._requests import RequiredInput, ValidatedSample, _validate_sample
from ._validation import validate_schema

__all__ = [
    "CustomForwardBackwardRequest",
    "custom_forward_backward_request",
    "validate_custom_forward_backward",
]


@dataclass(frozen=True)
class CustomForwardBackwardRequest:
    samples: list[ValidatedSample]
    gradients: list[np.ndarray]  # float64, one per sample, as long as its tokens


_CUSTOM_FB_LABEL = "custom-forward-backward"  # names the operation in messages
# The gradient is the caller's: of the loss inputs only the targets are needed.
_CUSTOM_FB_INPUTS = [RequiredInput("target_tokens")]


def validate_custom_forward_backward(
    body: object, vocab_size: int, scan: BodyScan | None = None
) -> CustomForwardBackwardRequest:
    """`CustomForwardBackwardBody`: samples need `target_tokens` (+ `weights` xor `mask`), checked
    like forward-backward samples; one gradient per sample, as long as its tokens, finite."""
    validate_schema("CustomForwardBackwardBody", body)
    assert isinstance(body, dict)
    return custom_forward_backward_request(body, vocab_size)


def custom_forward_backward_request(
    body: dict[str, Any], vocab_size: int
) -> CustomForwardBackwardRequest:
    """The request of a body valid against the schema (`validate_custom_forward_backward`
    after its schema check)."""
    raw_samples: list[dict[str, Any]] = body["samples"]
    raw_gradients: list[dict[str, Any]] = body["gradients"]
    if len(raw_gradients) != len(raw_samples):
        raise invalid(
            "gradients",
            f"has {len(raw_gradients)} entries but there are {len(raw_samples)} samples"
            " (one gradient per sample)",
        )
    try:
        samples = [
            _validate_sample(index, sample, _CUSTOM_FB_LABEL, _CUSTOM_FB_INPUTS, vocab_size)
            for index, sample in enumerate(raw_samples)
        ]
        gradients = [
            _gradient(index, gradient, sample.tokens.size)
            for index, (gradient, sample) in enumerate(zip(raw_gradients, samples, strict=True))
        ]
    except (OverflowError, ValueError, TypeError, RecursionError) as exc:
        raise invalid(None, "the request holds a value that cannot be used as a number") from exc
    return CustomForwardBackwardRequest(samples=samples, gradients=gradients)


def _gradient(index: int, gradient: dict[str, Any], n_tokens: int) -> np.ndarray:
    path = f"gradients[{index}].data"
    data: list[Any] = gradient["data"]
    if len(data) != n_tokens:
        raise invalid(path, f"has {len(data)} values but samples[{index}] has {n_tokens} tokens")
    try:
        values = np.fromiter(data, dtype=np.float64, count=len(data))
    except (OverflowError, ValueError, TypeError):
        raise invalid(path, "holds a number too large for a double") from None
    finite = np.isfinite(values)
    if not bool(finite.all()):
        raise invalid(path, f"NaN and Infinity are not valid numbers at data[{np.argmin(finite)}]")
    return values
