"""The operation kinds of a training session, described once: the generated endpoints that
POST and poll each (through their public ``request_parts`` seam) and the parser of its result.
Sync and async clients drive every kind through the same submit / poll / collect code; adding
a kind means adding its endpoints to the spec, its result parser and one :class:`OperationKind`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

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
from together_rl_client.types import RequestParts

from ._errors import InvalidRequestError
from ._http import RequestSpec
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
]

R = TypeVar("R")


class SubmitParts(Protocol):
    """The generated ``request_parts`` of an operation POST."""

    def __call__(self, session_id: str, *, idempotency_key: str) -> RequestParts: ...


class PollParts(Protocol):
    """The generated ``request_parts`` of an operation GET."""

    def __call__(self, session_id: str, operation_id: str) -> RequestParts: ...


@dataclass(frozen=True)
class OperationKind(Generic[R]):
    """One operation kind: its POST and GET endpoints (``request_parts`` and ``PATH`` of each)
    and how its ``output`` becomes a result. ``name`` is the last segment of the POST path
    (``"optim-step"``)."""

    submit_parts: SubmitParts
    submit_path: str
    poll_parts: PollParts
    poll_path: str
    parse_output: Callable[[str, Mapping[str, Any]], R]

    @property
    def name(self) -> str:
        return self.submit_path.rsplit("/", 1)[-1]

    def post_request(self, session_id: str, content: bytes | None, key: str) -> RequestSpec:
        parts = self.submit_parts(session_id, idempotency_key=key)
        return RequestSpec.from_parts(parts, path=self.submit_path, content=content)

    def get_request(self, session_id: str, operation_id: str) -> RequestSpec:
        if not operation_id:
            raise InvalidRequestError("operation_id must not be empty", field="operation_id")
        parts = self.poll_parts(session_id, operation_id)
        return RequestSpec.from_parts(parts, path=self.poll_path)


FORWARD_BACKWARD: OperationKind[ForwardBackwardResult] = OperationKind(
    forward_backward.request_parts,
    forward_backward.PATH,
    get_forward_backward_operation.request_parts,
    get_forward_backward_operation.PATH,
    parse_forward_backward,
)
OPTIM_STEP: OperationKind[OptimStepResult] = OperationKind(
    optim_step.request_parts,
    optim_step.PATH,
    get_optim_step_operation.request_parts,
    get_optim_step_operation.PATH,
    parse_optim_step,
)
SAMPLE: OperationKind[SampleResult] = OperationKind(
    sample.request_parts,
    sample.PATH,
    get_sample_operation.request_parts,
    get_sample_operation.PATH,
    parse_sample,
)
WEIGHTS_SYNC: OperationKind[WeightsSyncResult] = OperationKind(
    weights_sync.request_parts,
    weights_sync.PATH,
    get_weights_sync_operation.request_parts,
    get_weights_sync_operation.PATH,
    parse_weights_sync,
)
CUSTOM_FORWARD_BACKWARD: OperationKind[CustomForwardBackwardResult] = OperationKind(
    custom_forward_backward.request_parts,
    custom_forward_backward.PATH,
    get_custom_forward_backward_operation.request_parts,
    get_custom_forward_backward_operation.PATH,
    parse_custom_forward_backward,
)
# The checkpoint kinds take no request body.
TRAINING_CHECKPOINT: OperationKind[CheckpointResult] = OperationKind(
    create_training_checkpoint.request_parts,
    create_training_checkpoint.PATH,
    get_training_checkpoint_operation.request_parts,
    get_training_checkpoint_operation.PATH,
    parse_checkpoint,
)
INFERENCE_CHECKPOINT: OperationKind[CheckpointResult] = OperationKind(
    create_inference_checkpoint.request_parts,
    create_inference_checkpoint.PATH,
    get_inference_checkpoint_operation.request_parts,
    get_inference_checkpoint_operation.PATH,
    parse_checkpoint,
)
KINDS: dict[str, OperationKind[Any]] = {
    kind.name: kind
    for kind in (
        FORWARD_BACKWARD, OPTIM_STEP, SAMPLE, WEIGHTS_SYNC, CUSTOM_FORWARD_BACKWARD,
        TRAINING_CHECKPOINT, INFERENCE_CHECKPOINT,
    )
}  # fmt: skip
