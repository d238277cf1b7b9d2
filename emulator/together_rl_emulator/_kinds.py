"""The registry of operation kinds: one entry per kind, everything the layers need to serve it.

A kind is named by its path segment (`.../operations/<name>`), which is also its idempotency
scope and its key in `/_emulator/stats`. Its entry gives the validator of its body (None for a
kind the spec gives no request body), the runner that computes it (`_engine.py`) and the member
of its output that is offloaded when large. The routes, operation ids and whether the official
SDK may upload the body (`payload_id` in the body schema) are read from the spec.

Adding a kind is one entry here plus its semantics (a request type and validator in
`_requests.py`, a runner in `_engine.py`); the app, service and worker follow the registry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ._checkpoints import (
    INFERENCE_CHECKPOINT,
    TRAINING_CHECKPOINT,
    run_inference_checkpoint,
    run_training_checkpoint,
)
from ._custom_requests import validate_custom_forward_backward
from ._engine import (
    OperationOutcome,
    RunContext,
    run_custom_forward_backward,
    run_forward_backward_pass,
    run_optim_step,
    run_sample,
    run_weights_sync,
)
from ._fast_decode import Validator
from ._raw_body import TypedValidator
from ._requests import validate_forward_backward
from ._simple_requests import (
    check_optimizer_matches,
    validate_optim_step,
    validate_sample,
    validate_weights_sync,
)
from ._spec import kind_operations
from ._trainer import TrainerState
from ._typed_requests import typed_custom_forward_backward, typed_forward_backward

__all__ = [
    "KINDS",
    "OPERATION_KINDS",
    "OperationKind",
    "Runner",
    "Validator",
    "kind_named",
    "validate_operation",
]

# (trainer state, validated request or None, the operation's context) -> outcome.
Runner = Callable[[TrainerState, Any, RunContext], OperationOutcome]


@dataclass(frozen=True)
class OperationKind:
    name: str
    validate: Validator | None  # None: the kind takes no request body
    run: Runner
    result_member: str | None = None  # offloaded to a payload when the output is large ...
    keep_empty: bool = False  # ... and left inline as [] (a required member)
    # A large body may come from `decode_fast` (its validator takes arrays in place of lists).
    fast_decode: bool = False
    # A large body may be validated from its bytes by the typed decoder (`_typed_requests.py`).
    typed: TypedValidator | None = None
    # What the request must agree with in the session's model resources (400 if not).
    check_resources: Callable[[Any, dict[str, Any]], None] | None = None
    # From the spec (filled in by `__post_init__`):
    submit_operation_id: str = field(init=False)
    get_operation_id: str = field(init=False)
    uploadable: bool = field(init=False)  # the body may stand for an uploaded one (`payload_id`)

    def __post_init__(self) -> None:
        operations = kind_operations(self.name)
        if operations.has_body != (self.validate is not None):
            has = "has" if operations.has_body else "has no"
            raise RuntimeError(
                f"the spec's {operations.submit_operation_id} {has} request body but the"
                f" {self.name!r} kind {'has no' if operations.has_body else 'has a'} validator"
            )
        object.__setattr__(self, "submit_operation_id", operations.submit_operation_id)
        object.__setattr__(self, "get_operation_id", operations.get_operation_id)
        object.__setattr__(self, "uploadable", operations.uploadable)


KINDS: dict[str, OperationKind] = {
    kind.name: kind
    for kind in (
        OperationKind(
            "forward-backward",
            validate_forward_backward,
            run_forward_backward_pass,
            result_member="loss_fn_outputs",
            fast_decode=True,
            typed=typed_forward_backward,
        ),
        OperationKind(
            "optim-step",
            lambda body, vocab, scan: validate_optim_step(body),
            run_optim_step,
            check_resources=check_optimizer_matches,
        ),
        OperationKind(
            "sample", validate_sample, run_sample, result_member="results", keep_empty=True
        ),
        OperationKind(
            "weights-sync", lambda body, vocab, scan: validate_weights_sync(body), run_weights_sync
        ),
        OperationKind(
            "custom-forward-backward",
            validate_custom_forward_backward,
            run_custom_forward_backward,
            typed=typed_custom_forward_backward,
        ),
        OperationKind(TRAINING_CHECKPOINT, None, run_training_checkpoint),
        OperationKind(INFERENCE_CHECKPOINT, None, run_inference_checkpoint),
    )
}
OPERATION_KINDS = tuple(KINDS)


def kind_named(name: str) -> OperationKind:
    try:
        return KINDS[name]
    except KeyError:
        raise ValueError(f"unknown operation kind {name!r}") from None


def validate_operation(kind: str, body: object, vocab_size: int) -> Any:
    """The validated request of an operation of `kind` (400 `ApiError` if invalid)."""
    validator = kind_named(kind).validate
    return None if validator is None else validator(body, vocab_size, None)
