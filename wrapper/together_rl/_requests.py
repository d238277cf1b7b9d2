"""The requests of sessions and model resources, built through the generated client's public
seam (each endpoint module's ``request_parts`` and ``PATH``), and the checks of the arguments the
sync and async clients share. No I/O here."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from together_rl_client.api.rl import (
    create_model_resources,
    download_checkpoint,
    estimate_model_resources_cost,
    extend_model_resources_expiry,
    get_checkpoint,
    get_model_resources,
    get_supported_models,
    get_training_session,
    list_checkpoints,
    list_model_resources,
    list_training_sessions,
    start_training_session,
    stop_model_resources,
    stop_training_session,
    update_training_session,
)
from together_rl_client.models import (
    CheckpointType,
    CheckpointVariant,
    ModelResourcesCreate,
    ModelResourcesExtendExpiry,
    ModelResourcesStatus,
    SessionCreate,
    SessionStatus,
    SessionUpdate,
)

from ._bodies import AdamParams, SamplingParams
from ._errors import InvalidRequestError
from ._http import RequestSpec
from ._operation_kinds import FORWARD_BACKWARD, KINDS, OperationKind
from ._wire import encode_json

__all__ = [
    "adam_params_from",
    "checkpoint_download_request",
    "checkpoint_file_path",
    "create_model_resources_request",
    "create_session_request",
    "estimate_cost_request",
    "extend_expiry_request",
    "forward_backward_poll_kind",
    "get_checkpoint_request",
    "get_model_resources_request",
    "get_session_request",
    "list_checkpoints_request",
    "list_model_resources_request",
    "list_sessions_request",
    "new_idempotency_key",
    "operation_kind",
    "require_id",
    "sampling_params_from",
    "stop_model_resources_request",
    "stop_session_request",
    "supported_models_request",
    "update_session_request",
]


def new_idempotency_key() -> str:
    return str(uuid.uuid4())


def _drop_none(values: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in values.items():
        if value is None:
            continue
        out[key] = value.to_dict() if hasattr(value, "to_dict") else value
    return out


M = TypeVar("M")


def _body(parse: Callable[[Any], M], values: Mapping[str, Any], what: str) -> M:
    """A generated request model from the caller's values, refused before sending when they do
    not fit it."""
    try:
        return parse(_drop_none(values))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InvalidRequestError(f"{what}: {exc!r}") from exc


def require_id(name: str, value: str) -> None:
    if not value:
        raise InvalidRequestError(f"{name} must not be empty", field=name)


def create_session_request(model_resources_id: str, options: Mapping[str, Any]) -> RequestSpec:
    body = _body(
        SessionCreate.from_dict,
        {"model_resources_id": model_resources_id, **options},
        "the session options do not fit SessionCreate",
    )
    return RequestSpec.from_parts(
        start_training_session.request_parts(),
        path=start_training_session.PATH,
        content=encode_json(body.to_dict()),
    )


def get_session_request(session_id: str) -> RequestSpec:
    require_id("session_id", session_id)
    return RequestSpec.from_parts(
        get_training_session.request_parts(session_id), path=get_training_session.PATH
    )


def stop_session_request(session_id: str) -> RequestSpec:
    require_id("session_id", session_id)
    return RequestSpec.from_parts(
        stop_training_session.request_parts(session_id), path=stop_training_session.PATH
    )


def list_sessions_request(
    *, after: str | None, limit: int | None, status: list[str] | None
) -> RequestSpec:
    """One page; ``None`` leaves a parameter to the spec's default (the page size included)."""
    options: dict[str, Any] = {}
    if after is not None:
        options["after"] = after
    if limit is not None:
        options["limit"] = limit
    if status:
        options["status"] = [SessionStatus(s) for s in status]
    return RequestSpec.from_parts(
        list_training_sessions.request_parts(**options), path=list_training_sessions.PATH
    )


def create_model_resources_request(base_model: str, options: Mapping[str, Any]) -> RequestSpec:
    body = _body(
        ModelResourcesCreate.from_dict,
        {"base_model": base_model, **options},
        "the options do not fit ModelResourcesCreate",
    )
    return RequestSpec.from_parts(
        create_model_resources.request_parts(),
        path=create_model_resources.PATH,
        content=encode_json(body.to_dict()),
    )


def get_model_resources_request(model_resources_id: str) -> RequestSpec:
    require_id("model_resources_id", model_resources_id)
    return RequestSpec.from_parts(
        get_model_resources.request_parts(model_resources_id), path=get_model_resources.PATH
    )


def update_session_request(session_id: str, options: Mapping[str, Any]) -> RequestSpec:
    """PATCH: only the fields given (``""`` clears a value on the server)."""
    require_id("session_id", session_id)
    body = _body(SessionUpdate.from_dict, options, "the options do not fit SessionUpdate")
    return RequestSpec.from_parts(
        update_training_session.request_parts(session_id),
        path=update_training_session.PATH,
        content=encode_json(body.to_dict()),
    )


def _page_options(after: str | None, limit: int | None, **filters: Any) -> dict[str, Any]:
    """Query options of a list request: ``None`` leaves a parameter out (or to its default)."""
    return _drop_none({"after": after, "limit": limit, **filters})


def list_model_resources_request(
    *, after: str | None, limit: int | None, status: list[str] | None, created_by: str | None
) -> RequestSpec:
    statuses = [ModelResourcesStatus(s) for s in status] if status else None
    options = _page_options(after, limit, status=statuses, created_by=created_by)
    return RequestSpec.from_parts(
        list_model_resources.request_parts(**options), path=list_model_resources.PATH
    )


def stop_model_resources_request(model_resources_id: str, force: bool) -> RequestSpec:
    require_id("model_resources_id", model_resources_id)
    parts = stop_model_resources.request_parts(model_resources_id, force=force)
    return RequestSpec.from_parts(parts, path=stop_model_resources.PATH)


def extend_expiry_request(model_resources_id: str, seconds: int) -> RequestSpec:
    require_id("model_resources_id", model_resources_id)
    body = ModelResourcesExtendExpiry(seconds=seconds)
    return RequestSpec.from_parts(
        extend_model_resources_expiry.request_parts(model_resources_id),
        path=extend_model_resources_expiry.PATH,
        content=encode_json(body.to_dict()),
    )


def estimate_cost_request(base_model: str, options: Mapping[str, Any]) -> RequestSpec:
    body = _body(
        ModelResourcesCreate.from_dict,
        {"base_model": base_model, **options},
        "the options do not fit ModelResourcesCreate",
    )
    return RequestSpec.from_parts(
        estimate_model_resources_cost.request_parts(),
        path=estimate_model_resources_cost.PATH,
        content=encode_json(body.to_dict()),
    )


def list_checkpoints_request(
    *,
    after: str | None,
    limit: int | None,
    session_id: str | None,
    base_model: str | None,
    type: str | None,
) -> RequestSpec:
    checkpoint_type = None if type is None else CheckpointType(type)
    options = _page_options(
        after, limit, session_id=session_id, base_model=base_model, type_=checkpoint_type
    )
    return RequestSpec.from_parts(
        list_checkpoints.request_parts(**options), path=list_checkpoints.PATH
    )


def get_checkpoint_request(checkpoint_id: str) -> RequestSpec:
    require_id("checkpoint_id", checkpoint_id)
    return RequestSpec.from_parts(
        get_checkpoint.request_parts(checkpoint_id), path=get_checkpoint.PATH
    )


def checkpoint_download_request(checkpoint_id: str, variant: str) -> RequestSpec:
    require_id("checkpoint_id", checkpoint_id)
    parts = download_checkpoint.request_parts(checkpoint_id, variant=CheckpointVariant(variant))
    return RequestSpec.from_parts(parts, path=download_checkpoint.PATH)


def checkpoint_file_path(folder: Path, filename: str) -> Path:
    """Where a downloaded file goes: a bare file name inside ``folder`` (a name with a
    directory part could write anywhere, so it is refused)."""
    if not filename or Path(filename).name != filename or filename in (".", ".."):
        raise InvalidRequestError(f"unsafe checkpoint file name {filename!r}", field="filename")
    return folder / filename


def supported_models_request() -> RequestSpec:
    return RequestSpec.from_parts(
        get_supported_models.request_parts(), path=get_supported_models.PATH
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
    return FORWARD_BACKWARD.name + (":forward" if forward_only else "")


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
