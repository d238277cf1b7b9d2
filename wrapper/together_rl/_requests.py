"""What the sync and async clients share: request building (from the generated endpoint
modules' ``_get_kwargs``) and response interpretation. No I/O here."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from together_rl_client.api.rl import (
    create_model_resources,
    get_model_resources,
    get_supported_models,
    get_training_session,
    list_training_sessions,
    start_training_session,
    stop_training_session,
)
from together_rl_client.models import (
    ModelResources,
    ModelResourcesCreate,
    ModelResourcesStatus,
    OperationError,
    Session,
    SessionCreate,
    SessionsListResponse,
    SessionStatus,
    SupportedModels,
)
from together_rl_client.types import UNSET

from ._bodies import AdamParams, SamplingParams
from ._errors import InvalidRequestError, OperationFailedError, ResourceStateError
from ._http import RequestSpec
from ._operations import CUSTOM_FORWARD_BACKWARD as CUSTOM_FORWARD_BACKWARD_KIND
from ._operations import FORWARD_BACKWARD as FORWARD_BACKWARD_KIND
from ._operations import KINDS, OperationKind
from ._wire import encode_json

COMPLETED = "TRAINING_OPERATION_STATUS_COMPLETED"
FAILED = "TRAINING_OPERATION_STATUS_FAILED"


def new_idempotency_key() -> str:
    return str(uuid.uuid4())


def _drop_none(values: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in values.items():
        if value is None:
            continue
        out[key] = value.to_dict() if hasattr(value, "to_dict") else value
    return out


def _json_request(kwargs: dict[str, Any], operation: str) -> RequestSpec:
    body = kwargs.pop("json", None)
    content = encode_json(body) if body is not None else None
    return RequestSpec.from_kwargs(kwargs, operation=operation, content=content)


# ----------------------------------------------------------------------------- requests


def create_session_request(model_resources_id: str, options: Mapping[str, Any]) -> RequestSpec:
    body = SessionCreate.from_dict(
        _drop_none({"model_resources_id": model_resources_id, **options})
    )
    return _json_request(
        start_training_session._get_kwargs(body=body), "POST /v1/rl/training-sessions"
    )


def get_session_request(session_id: str) -> RequestSpec:
    _require_id("session_id", session_id)
    return RequestSpec.from_kwargs(
        get_training_session._get_kwargs(session_id),
        operation="GET /v1/rl/training-sessions/{session_id}",
    )


def stop_session_request(session_id: str) -> RequestSpec:
    _require_id("session_id", session_id)
    return RequestSpec.from_kwargs(
        stop_training_session._get_kwargs(session_id),
        operation="POST /v1/rl/training-sessions/{session_id}/stop",
    )


def list_sessions_request(
    *, after: str | None, limit: int | None, status: list[str] | None
) -> RequestSpec:
    kwargs = list_training_sessions._get_kwargs(
        after=after if after is not None else UNSET,
        limit=limit if limit is not None else 20,
        status=[SessionStatus(s) for s in status] if status else UNSET,
    )
    return RequestSpec.from_kwargs(kwargs, operation="GET /v1/rl/training-sessions")


def create_model_resources_request(base_model: str, options: Mapping[str, Any]) -> RequestSpec:
    body = ModelResourcesCreate.from_dict(_drop_none({"base_model": base_model, **options}))
    return _json_request(
        create_model_resources._get_kwargs(body=body), "POST /v1/rl/model-resources"
    )


def get_model_resources_request(model_resources_id: str) -> RequestSpec:
    _require_id("model_resources_id", model_resources_id)
    return RequestSpec.from_kwargs(
        get_model_resources._get_kwargs(model_resources_id),
        operation="GET /v1/rl/model-resources/{model_resources_id}",
    )


def supported_models_request() -> RequestSpec:
    return RequestSpec.from_kwargs(
        get_supported_models._get_kwargs(), operation="GET /v1/rl/supported-models"
    )


def operation_kind(name: str) -> OperationKind[Any]:
    kind = KINDS.get(name)
    if kind is None:
        raise InvalidRequestError(
            f"kind must be one of {sorted(KINDS)}, got {name!r}", field="kind"
        )
    return kind


def forward_backward_poll_kind(forward_only: bool) -> str:
    """The duration class a forward-backward is learned under: a forward-only pass is
    much shorter than a pass with a backward, so the two are learned apart."""
    return FORWARD_BACKWARD_KIND.name + (":forward" if forward_only else "")


def _set_fields(name: str, value: object, fields: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword fields that are set, refused beside an explicit ``name`` object."""
    given = {key: field for key, field in fields.items() if field is not None}
    if value is not None and given:
        raise InvalidRequestError(
            f"pass {name} or the fields ({', '.join(sorted(given))}), not both", field=name
        )
    return given


def adam_params_from(
    adam_params: AdamParams | Mapping[str, Any] | None, **fields: float | None
) -> AdamParams | None:
    """``adam_params`` or the keyword fields (only the set ones), not both."""
    given = _set_fields("adam_params", adam_params, fields)
    if adam_params is not None:
        return AdamParams.from_value(adam_params)
    return AdamParams(**given) if given else None


def sampling_params_from(
    sampling_params: SamplingParams | Mapping[str, Any] | None, **fields: Any
) -> SamplingParams | Mapping[str, Any] | None:
    """``sampling_params`` or the keyword fields (only the set ones), not both."""
    given = _set_fields("sampling_params", sampling_params, fields)
    if sampling_params is not None:
        return sampling_params
    return SamplingParams(**given) if given else None


def _require_id(name: str, value: str) -> None:
    if not value:
        raise InvalidRequestError(f"{name} must not be empty", field=name)


# ----------------------------------------------------------------------------- responses


def parse_session(data: Any) -> Session:
    return Session.from_dict(data)


def parse_sessions(data: Any) -> SessionsListResponse:
    return SessionsListResponse.from_dict(data)


def parse_model_resources(data: Any) -> ModelResources:
    return ModelResources.from_dict(data)


def parse_supported_models(data: Any) -> SupportedModels:
    return SupportedModels.from_dict(data)


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
    failure: OperationFailedError | None = None
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
        failure = OperationFailedError(
            operation_id, None, f"completed with an output that cannot be read: {exc!r}"
        )
        return OperationState(operation_id, status, failure=failure)
    return OperationState(operation_id, status, result=result)


def interpret_operation(
    data: Any, kind: OperationKind[Any] = FORWARD_BACKWARD_KIND
) -> OperationState:
    """Classify an operation body of ``kind``. Only COMPLETED and FAILED are terminal; any
    other status, known or not, means keep polling."""
    if not isinstance(data, Mapping) or "id" not in data or "status" not in data:
        raise InvalidRequestError(f"unexpected operation body: {str(data)[:200]}")
    operation_id = str(data["id"])
    status = str(data["status"])
    if status == COMPLETED:
        output = data.get("output")
        if output is None and kind is CUSTOM_FORWARD_BACKWARD_KIND:
            output = {}  # its result has no fields; every other kind must carry one
        if not isinstance(output, Mapping):
            failure = OperationFailedError(operation_id, None, "completed without an output")
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
