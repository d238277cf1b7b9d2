"""The operation kinds: each named by its path segment (`.../operations/<kind>`), which is also
its idempotency scope and its key in `/_emulator/stats`, with the validator of its body."""

from __future__ import annotations

from typing import Any

from ._checkpoints import CHECKPOINT_KINDS, validate_checkpoint_body
from ._validation import validate_forward_backward
from ._validation_ops import (
    validate_custom_forward_backward,
    validate_optim_step,
    validate_sample,
    validate_weights_sync,
)

FORWARD_BACKWARD = "forward-backward"
OPTIM_STEP = "optim-step"
SAMPLE = "sample"
WEIGHTS_SYNC = "weights-sync"
CUSTOM_FORWARD_BACKWARD = "custom-forward-backward"

OPERATION_KINDS = (
    FORWARD_BACKWARD, OPTIM_STEP, SAMPLE, WEIGHTS_SYNC, CUSTOM_FORWARD_BACKWARD, *CHECKPOINT_KINDS
)  # fmt: skip
# Kinds whose request body the official SDK may upload through the payload protocol.
UPLOADABLE_KINDS = (FORWARD_BACKWARD, SAMPLE, CUSTOM_FORWARD_BACKWARD)


def validate_operation(kind: str, body: object, vocab_size: int) -> Any:
    """The validated request of an operation of `kind` (400 `ApiError` if invalid)."""
    if kind == FORWARD_BACKWARD:
        return validate_forward_backward(body, vocab_size)
    if kind == OPTIM_STEP:
        return validate_optim_step(body)
    if kind == SAMPLE:
        return validate_sample(body, vocab_size)
    if kind == WEIGHTS_SYNC:
        return validate_weights_sync(body)
    if kind == CUSTOM_FORWARD_BACKWARD:
        return validate_custom_forward_backward(body, vocab_size)
    if kind in CHECKPOINT_KINDS:
        validate_checkpoint_body(body)
        return None
    raise ValueError(f"unknown operation kind {kind!r}")
