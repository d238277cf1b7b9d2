"""How the answers of the API are read (no I/O): every 2xx body (:func:`read_body`), readiness,
and what an operation body says (going, failed, completed, or completed and offloaded)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from together_rl_client.models import ModelResources, OperationStatus, Session
from together_rl_client.types import Endpoint

from ._errors import MalformedResponseError, OperationFailedError, ResourceStateError
from ._results import FORWARD_BACKWARD, OperationKind

__all__ = ["OperationState", "complete_operation", "interpret_operation", "read_body", "readiness"]

M = TypeVar("M")
COMPLETED = OperationStatus.TRAINING_OPERATION_STATUS_COMPLETED.value
FAILED = OperationStatus.TRAINING_OPERATION_STATUS_FAILED.value
#: the last word of the SessionStatus and ModelResourcesStatus members that are usable, and of
#: those that never will be (``..._STATUS_CREATING``, an unknown status, ...: still waiting)
_READY = {"RUNNING", "READY"}
_DEAD = {"STOPPED", "STOPPING", "ERROR", "EXPIRED"}
#: what a reader raises on a body of the wrong shape
_UNREADABLE = (KeyError, TypeError, ValueError, AttributeError)


def _malformed(what: str, data: Any, operation: str | None = None) -> MalformedResponseError:
    return MalformedResponseError(what, operation=operation, body=str(data)[:200])


def read_body(endpoint: Endpoint[Any, M], data: Any, operation: str | None = None) -> M:
    """The generated model of ``endpoint``'s 2xx body, or a :class:`MalformedResponseError`."""
    parse = endpoint.parse_response
    assert parse is not None, f"{endpoint.path} has no JSON answer"
    try:
        return parse(data)
    except _UNREADABLE as exc:
        raise _malformed(f"the answer cannot be read: {exc!r}", data, operation) from exc


def readiness(info: Session | ModelResources) -> bool:
    """RUNNING or READY: True; starting: False; raises when they can no longer become usable."""
    status = info.status
    state = status.name.rsplit("_", 1)[-1]  # an unknown status is named UNKNOWN
    if state in _DEAD:
        what = "session" if isinstance(info, Session) else "model resources"
        raise ResourceStateError(f"{what} {info.id} is {status.value}, it will not become usable")
    return state in _READY


@dataclass(frozen=True)
class OperationState:
    """A polled operation: terminal with a result (or failure), still going, or completed with
    an offloaded output (``offloaded``: the inline output, with ``payload_id``) to download."""

    operation_id: str
    status: str
    result: Any = None
    failure: MalformedResponseError | OperationFailedError | None = None
    offloaded: Mapping[str, Any] | None = None

    @property
    def terminal(self) -> bool:  # a result or a failure is known: nothing is left to fetch
        return self.result is not None or self.failure is not None

    @property
    def server_done(self) -> bool:  # the server has finished it: polling stops here
        return self.terminal or self.offloaded is not None


def complete_operation(
    kind: OperationKind[Any], operation_id: str, status: str, output: Mapping[str, Any]
) -> OperationState:
    """The terminal state of a COMPLETED operation whose (merged) ``output`` is known."""
    try:
        return OperationState(operation_id, status, result=kind.parse_output(operation_id, output))
    except _UNREADABLE as exc:
        what = f"operation {operation_id} completed with an output that cannot be read: {exc!r}"
        return OperationState(operation_id, status, failure=_malformed(what, output))


def interpret_operation(data: Any, kind: OperationKind[Any] = FORWARD_BACKWARD) -> OperationState:
    """Classify an operation body of ``kind``: only COMPLETED and FAILED are terminal."""
    if not isinstance(data, Mapping) or "id" not in data or "status" not in data:
        raise _malformed("an operation body needs 'id' and 'status'", data)
    operation_id, status = str(data["id"]), str(data["status"])
    if status == COMPLETED:
        output = data.get("output")
        if output is None and kind.output_optional:
            output = {}
        if not isinstance(output, Mapping):
            missing = _malformed(f"operation {operation_id} completed without an output", data)
            return OperationState(operation_id, status, failure=missing)
        if output.get("payload_id"):
            return OperationState(operation_id, status, offloaded=output)
        return complete_operation(kind, operation_id, status, output)
    if status == FAILED:
        error = data.get("error")
        error = error if isinstance(error, Mapping) else {}
        code, message = (str(error[k]) if error.get(k) else None for k in ("code", "message"))
        failure = OperationFailedError(operation_id, code, message)
        return OperationState(operation_id, status, failure=failure)
    return OperationState(operation_id, status)
