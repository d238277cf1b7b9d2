"""How the answers of the API are read: sessions and model resources (and whether they are
ready), and operation bodies (still going, failed, completed with a result, or completed with an
offloaded output to download). No I/O here."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from together_rl_client.models import (
    Checkpoint,
    CheckpointDownloadResponse,
    CheckpointsListResponse,
    ModelResources,
    ModelResourcesCostEstimate,
    ModelResourcesListResponse,
    ModelResourcesStatus,
    OperationError,
    OperationStatus,
    Session,
    SessionsListResponse,
    SessionStatus,
    SupportedModels,
)

from ._errors import (
    MalformedResponseError,
    OperationFailedError,
    ResourceStateError,
    TogetherRLError,
)
from ._operation_kinds import CUSTOM_FORWARD_BACKWARD, FORWARD_BACKWARD, OperationKind

__all__ = [
    "OperationState",
    "complete_operation",
    "interpret_operation",
    "parse_checkpoint",
    "parse_checkpoint_download",
    "parse_checkpoints",
    "parse_cost_estimate",
    "parse_model_resources",
    "parse_model_resources_list",
    "parse_session",
    "parse_sessions",
    "parse_supported_models",
    "resources_readiness",
    "session_readiness",
]

COMPLETED = OperationStatus.TRAINING_OPERATION_STATUS_COMPLETED.value
FAILED = OperationStatus.TRAINING_OPERATION_STATUS_FAILED.value


M = TypeVar("M")


def _read(parse: Callable[[Any], M], data: Any, what: str) -> M:
    """A generated model from a 2xx body; a body it cannot read is a malformed answer."""
    try:
        return parse(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise MalformedResponseError(
            f"{what} cannot be read: {exc!r}", body=str(data)[:200]
        ) from exc


def parse_session(data: Any) -> Session:
    return _read(Session.from_dict, data, "a session")


def parse_sessions(data: Any) -> SessionsListResponse:
    return _read(SessionsListResponse.from_dict, data, "a page of sessions")


def parse_model_resources(data: Any) -> ModelResources:
    return _read(ModelResources.from_dict, data, "model resources")


def parse_supported_models(data: Any) -> SupportedModels:
    return _read(SupportedModels.from_dict, data, "the supported models")


def parse_model_resources_list(data: Any) -> ModelResourcesListResponse:
    return ModelResourcesListResponse.from_dict(data)


def parse_cost_estimate(data: Any) -> ModelResourcesCostEstimate:
    return ModelResourcesCostEstimate.from_dict(data)


def parse_checkpoint(data: Any) -> Checkpoint:
    return Checkpoint.from_dict(data)


def parse_checkpoints(data: Any) -> CheckpointsListResponse:
    return CheckpointsListResponse.from_dict(data)


def parse_checkpoint_download(data: Any) -> CheckpointDownloadResponse:
    return CheckpointDownloadResponse.from_dict(data)


SESSION_READY = SessionStatus.TRAINING_SESSION_STATUS_RUNNING.value
SESSION_DEAD = frozenset(
    {
        SessionStatus.TRAINING_SESSION_STATUS_STOPPED.value,
        SessionStatus.TRAINING_SESSION_STATUS_STOPPING.value,
        SessionStatus.TRAINING_SESSION_STATUS_ERROR.value,
        SessionStatus.TRAINING_SESSION_STATUS_EXPIRED.value,
    }
)
RESOURCES_READY = ModelResourcesStatus.MODEL_RESOURCES_STATUS_READY.value
RESOURCES_DEAD = frozenset(
    {
        ModelResourcesStatus.MODEL_RESOURCES_STATUS_ERROR.value,
        ModelResourcesStatus.MODEL_RESOURCES_STATUS_STOPPED.value,
        ModelResourcesStatus.MODEL_RESOURCES_STATUS_STOPPING.value,
    }
)


def session_readiness(session: Session) -> bool:
    """True when RUNNING, False while starting; raises when it can no longer start."""
    status = session.status.value
    if status == SESSION_READY:
        return True
    if status in SESSION_DEAD:
        raise ResourceStateError(f"session {session.id} is {status}, it will not become RUNNING")
    return False


def resources_readiness(resources: ModelResources) -> bool:
    """True when READY, False while provisioning; raises when it can no longer become ready."""
    status = resources.status.value
    if status == RESOURCES_READY:
        return True
    if status in RESOURCES_DEAD:
        raise ResourceStateError(f"model resources {resources.id} are {status}")
    return False


@dataclass(frozen=True)
class OperationState:
    """A polled operation: terminal with a result (or failure), still going, or completed
    with an offloaded output (``offloaded``: the inline output, carrying ``payload_id``) that
    the client must download and pass to :func:`complete_operation`."""

    operation_id: str
    status: str
    result: Any = None
    failure: TogetherRLError | None = None
    offloaded: Mapping[str, Any] | None = None

    @property
    def terminal(self) -> bool:
        return self.result is not None or self.failure is not None

    @property
    def server_done(self) -> bool:
        """The server has finished the operation (terminal, or completed with an offloaded
        output still to download): polling stops here."""
        return self.terminal or self.offloaded is not None

    @property
    def payload_id(self) -> str | None:
        return None if self.offloaded is None else str(self.offloaded["payload_id"])


def complete_operation(
    kind: OperationKind[Any], operation_id: str, status: str, output: Mapping[str, Any]
) -> OperationState:
    """The terminal state of a COMPLETED operation whose (merged) ``output`` is known."""
    try:
        result = kind.parse_output(operation_id, output)
    except (KeyError, TypeError, ValueError) as exc:
        failure = MalformedResponseError(
            f"operation {operation_id} completed with an output that cannot be read: {exc!r}",
            body=str(output)[:200],
        )
        return OperationState(operation_id, status, failure=failure)
    return OperationState(operation_id, status, result=result)


def interpret_operation(data: Any, kind: OperationKind[Any] = FORWARD_BACKWARD) -> OperationState:
    """Classify an operation body of ``kind``. Only COMPLETED and FAILED are terminal; any
    other status, known or not, means keep polling."""
    if not isinstance(data, Mapping) or "id" not in data or "status" not in data:
        raise MalformedResponseError(
            "an operation body needs 'id' and 'status'", body=str(data)[:200]
        )
    operation_id = str(data["id"])
    status = str(data["status"])
    if status == COMPLETED:
        output = data.get("output")
        if output is None and kind is CUSTOM_FORWARD_BACKWARD:
            output = {}  # its result has no fields; every other kind must carry one
        if not isinstance(output, Mapping):
            failure = MalformedResponseError(
                f"operation {operation_id} completed without an output", body=str(data)[:200]
            )
            return OperationState(operation_id, status, failure=failure)
        if output.get("payload_id"):
            return OperationState(operation_id, status, offloaded=output)
        return complete_operation(kind, operation_id, status, output)
    if status == FAILED:
        raw_error = data.get("error")
        error = OperationError.from_dict(raw_error) if isinstance(raw_error, Mapping) else None
        code = None if error is None or not error.code else str(error.code)
        message = None if error is None or not error.message else str(error.message)
        return OperationState(
            operation_id, status, failure=OperationFailedError(operation_id, code, message)
        )
    return OperationState(operation_id, status)
