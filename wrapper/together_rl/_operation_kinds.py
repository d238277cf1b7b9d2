"""The operation kinds of a training session, one line each: the generated endpoints that POST
and poll it (their ``ENDPOINT``s carry the routes, the request seam and the kind's name) and the
parser of its result. Sync and async clients drive every kind through the same submit / poll /
collect code."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from together_rl_client.api import rl
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
    rl.forward_backward.ENDPOINT, rl.get_forward_backward_operation.ENDPOINT, parse_forward_backward
)
OPTIM_STEP: OperationKind[OptimStepResult] = OperationKind(
    rl.optim_step.ENDPOINT, rl.get_optim_step_operation.ENDPOINT, parse_optim_step
)
SAMPLE: OperationKind[SampleResult] = OperationKind(
    rl.sample.ENDPOINT, rl.get_sample_operation.ENDPOINT, parse_sample
)
WEIGHTS_SYNC: OperationKind[WeightsSyncResult] = OperationKind(
    rl.weights_sync.ENDPOINT, rl.get_weights_sync_operation.ENDPOINT, parse_weights_sync
)
CUSTOM_FORWARD_BACKWARD: OperationKind[CustomForwardBackwardResult] = OperationKind(
    rl.custom_forward_backward.ENDPOINT,
    rl.get_custom_forward_backward_operation.ENDPOINT,
    parse_custom_forward_backward,
    output_optional=True,
)
TRAINING_CHECKPOINT: OperationKind[CheckpointResult] = OperationKind(
    rl.create_training_checkpoint.ENDPOINT,
    rl.get_training_checkpoint_operation.ENDPOINT,
    parse_checkpoint,
)
INFERENCE_CHECKPOINT: OperationKind[CheckpointResult] = OperationKind(
    rl.create_inference_checkpoint.ENDPOINT,
    rl.get_inference_checkpoint_operation.ENDPOINT,
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
