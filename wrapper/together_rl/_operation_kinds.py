"""The operation kinds of a training session, one line each: the generated endpoints that POST
and poll it (their ``ENDPOINT``s carry the routes, the request seam and the kind's name) and the
parser of its result. Sync and async clients drive every kind through the same submit / poll /
collect code."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from together_rl_client.api.rl import (
    create_inference_checkpoint,
    create_training_checkpoint,
    custom_forward_backward,
    forward_backward,
    get_custom_forward_backward_operation,
    get_forward_backward_operation,
    get_inference_checkpoint_operation,
    get_optim_step_operation,
    get_sample_operation,
    get_training_checkpoint_operation,
    get_weights_sync_operation,
    optim_step,
    sample,
    weights_sync,
)
from together_rl_client.types import Endpoint

from ._errors import InvalidRequestError
from ._results import (
    CheckpointResult,
    CustomForwardBackwardResult,
    ForwardBackwardResult,
    OptimStepResult,
    SampleResult,
    WeightsSyncResult,
    parse_checkpoint,
    parse_custom_forward_backward,
    parse_forward_backward,
    parse_optim_step,
    parse_sample,
    parse_weights_sync,
)

__all__ = [
    "CUSTOM_FORWARD_BACKWARD",
    "FORWARD_BACKWARD",
    "INFERENCE_CHECKPOINT",
    "KINDS",
    "OPTIM_STEP",
    "SAMPLE",
    "TRAINING_CHECKPOINT",
    "WEIGHTS_SYNC",
    "OperationKind",
    "operation_kind",
]

R = TypeVar("R")


@dataclass(frozen=True)
class OperationKind(Generic[R]):
    """One operation kind: its POST and GET endpoints and how its ``output`` becomes a result.
    ``output_optional``: the result has no fields, so a COMPLETED body may carry no output."""

    submit: Endpoint[..., Any]
    poll: Endpoint[..., Any]
    parse_output: Callable[[str, Mapping[str, Any]], R]
    output_optional: bool = False

    @property
    def name(self) -> str:
        """The kind's path segment (``"optim-step"``), as the generated endpoints state it."""
        assert self.submit.operation_kind is not None
        return self.submit.operation_kind


FORWARD_BACKWARD: OperationKind[ForwardBackwardResult] = OperationKind(
    forward_backward.ENDPOINT, get_forward_backward_operation.ENDPOINT, parse_forward_backward
)
OPTIM_STEP: OperationKind[OptimStepResult] = OperationKind(
    optim_step.ENDPOINT, get_optim_step_operation.ENDPOINT, parse_optim_step
)
SAMPLE: OperationKind[SampleResult] = OperationKind(
    sample.ENDPOINT, get_sample_operation.ENDPOINT, parse_sample
)
WEIGHTS_SYNC: OperationKind[WeightsSyncResult] = OperationKind(
    weights_sync.ENDPOINT, get_weights_sync_operation.ENDPOINT, parse_weights_sync
)
CUSTOM_FORWARD_BACKWARD: OperationKind[CustomForwardBackwardResult] = OperationKind(
    custom_forward_backward.ENDPOINT,
    get_custom_forward_backward_operation.ENDPOINT,
    parse_custom_forward_backward,
    output_optional=True,
)
TRAINING_CHECKPOINT: OperationKind[CheckpointResult] = OperationKind(
    create_training_checkpoint.ENDPOINT,
    get_training_checkpoint_operation.ENDPOINT,
    parse_checkpoint,
)
INFERENCE_CHECKPOINT: OperationKind[CheckpointResult] = OperationKind(
    create_inference_checkpoint.ENDPOINT,
    get_inference_checkpoint_operation.ENDPOINT,
    parse_checkpoint,
)
KINDS: dict[str, OperationKind[Any]] = {
    kind.name: kind
    for kind in (
        FORWARD_BACKWARD, OPTIM_STEP, SAMPLE, WEIGHTS_SYNC, CUSTOM_FORWARD_BACKWARD,
        TRAINING_CHECKPOINT, INFERENCE_CHECKPOINT,
    )
}  # fmt: skip


def operation_kind(name: str) -> OperationKind[Any]:
    """The kind called ``name`` (``"optim-step"``), refused when there is none."""
    kind = KINDS.get(name)
    if kind is None:
        raise InvalidRequestError(
            f"kind must be one of {sorted(KINDS)}, got {name!r}", field="kind"
        )
    return kind
