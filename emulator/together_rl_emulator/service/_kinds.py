"""The registry of operation kinds: one entry per kind, everything the layers need to serve it.

A kind is named by its path segment (`.../operations/<name>`), which is also its idempotency
scope and its key in `/_emulator/stats`. Its entry gives the validator of its body (None for a
kind the spec gives no request body), the runner that computes it (`compute/_engine.py`), the
member of its output that is offloaded when large, what it must agree with in the session's
model resources, its work and what that costs on the GPU model (`cost/_gpu_model.py`, for the
`realistic` timing). The routes, operation ids and whether the official SDK may upload the body
(`payload_id` in the body schema) are read from the spec.

Adding a kind is one entry here plus its semantics (a request type and validator in
`checking/`, a runner in `compute/_engine.py`, its cost in `cost/_gpu_model.py`); the app,
service and worker follow the registry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..base import kind_operations
from ..checking import (
    CustomForwardBackwardRequest,
    ForwardBackwardRequest,
    SampleRequest,
    TypedValidator,
    Validator,
    check_optimizer_matches,
    typed_custom_forward_backward,
    typed_forward_backward,
    validate_custom_forward_backward,
    validate_forward_backward,
    validate_optim_step,
    validate_sample,
    validate_weights_sync,
)
from ..compute import (
    OperationOutcome,
    RunContext,
    TrainerState,
    run_custom_forward_backward,
    run_forward_backward_pass,
    run_optim_step,
    run_sample,
    run_weights_sync,
)
from ..cost import (
    FORWARD_BACKWARD_SECONDS,
    OperationWork,
    WorkSeconds,
    inference_checkpoint_seconds,
    optimizer_step_seconds,
    sample_seconds,
    training_checkpoint_seconds,
    weights_sync_seconds,
)
from ..state import (
    INFERENCE_CHECKPOINT,
    TRAINING_CHECKPOINT,
    run_inference_checkpoint,
    run_training_checkpoint,
)

__all__ = [
    "KINDS",
    "OPERATION_KINDS",
    "OperationKind",
    "Runner",
    "Validator",
    "kind_named",
    "sampled",
    "trainer_input",
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
    # It runs on the session's generator: refused (400) on trainer-only model resources.
    needs_generator: bool = False
    # Its work, from its validated request (None for a kind without a body) ...
    work: Callable[[Any], OperationWork] = lambda request: OperationWork()
    # ... and how long that work runs on a base model (the GPU model; the fixed overhead aside).
    seconds: WorkSeconds = field(kw_only=True)
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


def trainer_input(request: ForwardBackwardRequest | CustomForwardBackwardRequest) -> OperationWork:
    """The tokens a (custom) forward-backward feeds the trainer."""
    return OperationWork(input_tokens=sum(len(s.tokens) for s in request.samples))


def sampled(request: SampleRequest) -> OperationWork:
    """A sample's prompt tokens (once per sample) and `max_tokens` per sequence (the longest a
    sequence may be), over its sequences."""
    sequences = len(request.prompts) * request.num_samples
    prompts = sum(len(p) for p in request.prompts) * request.num_samples
    return OperationWork(prompts, sequences * request.max_tokens, sequences)


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
            work=trainer_input,
            seconds=FORWARD_BACKWARD_SECONDS,
        ),
        OperationKind(
            "optim-step",
            lambda body, vocab, scan: validate_optim_step(body),
            run_optim_step,
            check_resources=check_optimizer_matches,
            seconds=optimizer_step_seconds,
        ),
        OperationKind(
            "sample",
            validate_sample,
            run_sample,
            result_member="results",
            keep_empty=True,
            needs_generator=True,
            work=sampled,
            seconds=sample_seconds,
        ),
        OperationKind(
            "weights-sync",
            lambda body, vocab, scan: validate_weights_sync(body),
            run_weights_sync,
            seconds=weights_sync_seconds,
        ),
        OperationKind(
            "custom-forward-backward",
            validate_custom_forward_backward,
            run_custom_forward_backward,
            typed=typed_custom_forward_backward,
            work=trainer_input,
            seconds=FORWARD_BACKWARD_SECONDS,
        ),
        OperationKind(
            TRAINING_CHECKPOINT,
            None,
            run_training_checkpoint,
            seconds=training_checkpoint_seconds,
        ),
        OperationKind(
            INFERENCE_CHECKPOINT,
            None,
            run_inference_checkpoint,
            seconds=inference_checkpoint_seconds,
        ),
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
