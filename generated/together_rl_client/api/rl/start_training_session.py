from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_data import ErrorData
from ...models.session import Session
from ...models.session_create import SessionCreate
from ...types import Endpoint, RequestParts, Response


def _get_kwargs(
    *,
    body: SessionCreate,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/rl/training-sessions",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorData | Session | None:
    if response.status_code == 200:
        response_200 = Session.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorData.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorData.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = ErrorData.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = ErrorData.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = ErrorData.from_dict(response.json())

        return response_415

    if response.status_code == 429:
        response_429 = ErrorData.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = ErrorData.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorData | Session]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: SessionCreate,
) -> Response[ErrorData | Session]:
    """Start a training session

     Starts a training session on existing model resources, which must be
    `MODEL_RESOURCES_STATUS_READY` (400 otherwise). Session creation takes no
    `Idempotency-Key`. The session is usable for operations once its status is
    `TRAINING_SESSION_STATUS_RUNNING`.

    Concurrent sessions per model resources: at most 5 on a LoRA resource
    (`lora_enabled`), 1 on a full-weight resource; one more is refused with 429 whose message
    says so (with `x-should-retry: false`: it clears only when a session stops).

    With `resume_from_checkpoint_id` the session starts from one of the caller's checkpoints
    of the same base model. A training checkpoint restores the weights and, with
    `load_optimizer` omitted or true, the optimizer state and the step; with
    `load_optimizer: false`, the weights only, at step 0 with a fresh optimizer. An inference
    checkpoint restores the weights only: `load_optimizer: true` with it is refused with 400.

    Args:
        body (SessionCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorData | Session]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: SessionCreate,
) -> ErrorData | Session | None:
    """Start a training session

     Starts a training session on existing model resources, which must be
    `MODEL_RESOURCES_STATUS_READY` (400 otherwise). Session creation takes no
    `Idempotency-Key`. The session is usable for operations once its status is
    `TRAINING_SESSION_STATUS_RUNNING`.

    Concurrent sessions per model resources: at most 5 on a LoRA resource
    (`lora_enabled`), 1 on a full-weight resource; one more is refused with 429 whose message
    says so (with `x-should-retry: false`: it clears only when a session stops).

    With `resume_from_checkpoint_id` the session starts from one of the caller's checkpoints
    of the same base model. A training checkpoint restores the weights and, with
    `load_optimizer` omitted or true, the optimizer state and the step; with
    `load_optimizer: false`, the weights only, at step 0 with a fresh optimizer. An inference
    checkpoint restores the weights only: `load_optimizer: true` with it is refused with 400.

    Args:
        body (SessionCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorData | Session
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: SessionCreate,
) -> Response[ErrorData | Session]:
    """Start a training session

     Starts a training session on existing model resources, which must be
    `MODEL_RESOURCES_STATUS_READY` (400 otherwise). Session creation takes no
    `Idempotency-Key`. The session is usable for operations once its status is
    `TRAINING_SESSION_STATUS_RUNNING`.

    Concurrent sessions per model resources: at most 5 on a LoRA resource
    (`lora_enabled`), 1 on a full-weight resource; one more is refused with 429 whose message
    says so (with `x-should-retry: false`: it clears only when a session stops).

    With `resume_from_checkpoint_id` the session starts from one of the caller's checkpoints
    of the same base model. A training checkpoint restores the weights and, with
    `load_optimizer` omitted or true, the optimizer state and the step; with
    `load_optimizer: false`, the weights only, at step 0 with a fresh optimizer. An inference
    checkpoint restores the weights only: `load_optimizer: true` with it is refused with 400.

    Args:
        body (SessionCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorData | Session]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: SessionCreate,
) -> ErrorData | Session | None:
    """Start a training session

     Starts a training session on existing model resources, which must be
    `MODEL_RESOURCES_STATUS_READY` (400 otherwise). Session creation takes no
    `Idempotency-Key`. The session is usable for operations once its status is
    `TRAINING_SESSION_STATUS_RUNNING`.

    Concurrent sessions per model resources: at most 5 on a LoRA resource
    (`lora_enabled`), 1 on a full-weight resource; one more is refused with 429 whose message
    says so (with `x-should-retry: false`: it clears only when a session stops).

    With `resume_from_checkpoint_id` the session starts from one of the caller's checkpoints
    of the same base model. A training checkpoint restores the weights and, with
    `load_optimizer` omitted or true, the optimizer state and the step; with
    `load_optimizer: false`, the weights only, at step 0 with a fresh optimizer. An inference
    checkpoint restores the weights only: `load_optimizer: true` with it is refused with 400.

    Args:
        body (SessionCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorData | Session
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed


METHOD = "POST"
PATH = "/rl/training-sessions"


def request_parts() -> RequestParts:
    """Method, URL, query parameters and headers of `POST /rl/training-sessions`,
    without the body: for callers that encode the body themselves (and then send it with the
    Content-Type given here)."""
    headers: dict[str, Any] = {}

    headers["Content-Type"] = "application/json"
    return RequestParts(
        method=METHOD,
        url=PATH,
        headers=headers,
    )


ENDPOINT = Endpoint(
    method=METHOD,
    path=PATH,
    request_parts=request_parts,
    path_params=(),
    body_model=SessionCreate,
    parse_response=Session.from_dict,
    operation_kind=None,
)
