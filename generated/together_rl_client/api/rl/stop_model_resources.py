from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_data import ErrorData
from ...models.model_resources import ModelResources
from ...types import UNSET, Endpoint, RequestParts, Response, Unset


def _get_kwargs(
    model_resources_id: str,
    *,
    force: bool | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["force"] = force

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/rl/model-resources/{model_resources_id}/stop".format(
            model_resources_id=quote(str(model_resources_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorData | ModelResources | None:
    if response.status_code == 200:
        response_200 = ModelResources.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = ErrorData.from_dict(response.json())

        return response_409

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
) -> Response[ErrorData | ModelResources]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    model_resources_id: str,
    *,
    client: AuthenticatedClient | Client,
    force: bool | Unset = UNSET,
) -> Response[ErrorData | ModelResources]:
    """Stop model resources

     Stops the model resources and releases their compute (billing ends). Takes no body; the
    official SDK still sends `Content-Type: application/json`. Without `force`, refused with
    409 while any of its training sessions is `TRAINING_SESSION_STATUS_RUNNING` (the message
    names them; the answer carries `x-should-retry: false`). With `force: true` those sessions
    stop too, and their queued operations fail with
    `TRAINING_OPERATION_ERROR_CODE_SESSION_NOT_ACTIVE`. Stopping resources that are already
    `MODEL_RESOURCES_STATUS_STOPPED` or `MODEL_RESOURCES_STATUS_ERROR` is refused with 400
    (the message names the status): the official SDK catches that 400 and reads the resource
    (`together==3.1.1 together/post_training/clients/model_resources.py
    ModelResourcesClient._stop_remote`).

    Args:
        model_resources_id (str):
        force (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorData | ModelResources]
    """

    kwargs = _get_kwargs(
        model_resources_id=model_resources_id,
        force=force,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    model_resources_id: str,
    *,
    client: AuthenticatedClient | Client,
    force: bool | Unset = UNSET,
) -> ErrorData | ModelResources | None:
    """Stop model resources

     Stops the model resources and releases their compute (billing ends). Takes no body; the
    official SDK still sends `Content-Type: application/json`. Without `force`, refused with
    409 while any of its training sessions is `TRAINING_SESSION_STATUS_RUNNING` (the message
    names them; the answer carries `x-should-retry: false`). With `force: true` those sessions
    stop too, and their queued operations fail with
    `TRAINING_OPERATION_ERROR_CODE_SESSION_NOT_ACTIVE`. Stopping resources that are already
    `MODEL_RESOURCES_STATUS_STOPPED` or `MODEL_RESOURCES_STATUS_ERROR` is refused with 400
    (the message names the status): the official SDK catches that 400 and reads the resource
    (`together==3.1.1 together/post_training/clients/model_resources.py
    ModelResourcesClient._stop_remote`).

    Args:
        model_resources_id (str):
        force (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorData | ModelResources
    """

    return sync_detailed(
        model_resources_id=model_resources_id,
        client=client,
        force=force,
    ).parsed


async def asyncio_detailed(
    model_resources_id: str,
    *,
    client: AuthenticatedClient | Client,
    force: bool | Unset = UNSET,
) -> Response[ErrorData | ModelResources]:
    """Stop model resources

     Stops the model resources and releases their compute (billing ends). Takes no body; the
    official SDK still sends `Content-Type: application/json`. Without `force`, refused with
    409 while any of its training sessions is `TRAINING_SESSION_STATUS_RUNNING` (the message
    names them; the answer carries `x-should-retry: false`). With `force: true` those sessions
    stop too, and their queued operations fail with
    `TRAINING_OPERATION_ERROR_CODE_SESSION_NOT_ACTIVE`. Stopping resources that are already
    `MODEL_RESOURCES_STATUS_STOPPED` or `MODEL_RESOURCES_STATUS_ERROR` is refused with 400
    (the message names the status): the official SDK catches that 400 and reads the resource
    (`together==3.1.1 together/post_training/clients/model_resources.py
    ModelResourcesClient._stop_remote`).

    Args:
        model_resources_id (str):
        force (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorData | ModelResources]
    """

    kwargs = _get_kwargs(
        model_resources_id=model_resources_id,
        force=force,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    model_resources_id: str,
    *,
    client: AuthenticatedClient | Client,
    force: bool | Unset = UNSET,
) -> ErrorData | ModelResources | None:
    """Stop model resources

     Stops the model resources and releases their compute (billing ends). Takes no body; the
    official SDK still sends `Content-Type: application/json`. Without `force`, refused with
    409 while any of its training sessions is `TRAINING_SESSION_STATUS_RUNNING` (the message
    names them; the answer carries `x-should-retry: false`). With `force: true` those sessions
    stop too, and their queued operations fail with
    `TRAINING_OPERATION_ERROR_CODE_SESSION_NOT_ACTIVE`. Stopping resources that are already
    `MODEL_RESOURCES_STATUS_STOPPED` or `MODEL_RESOURCES_STATUS_ERROR` is refused with 400
    (the message names the status): the official SDK catches that 400 and reads the resource
    (`together==3.1.1 together/post_training/clients/model_resources.py
    ModelResourcesClient._stop_remote`).

    Args:
        model_resources_id (str):
        force (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorData | ModelResources
    """

    return (
        await asyncio_detailed(
            model_resources_id=model_resources_id,
            client=client,
            force=force,
        )
    ).parsed


METHOD = "POST"
PATH = "/rl/model-resources/{model_resources_id}/stop"


def request_parts(
    model_resources_id: str,
    *,
    force: bool | Unset = UNSET,
) -> RequestParts:
    """Method, URL, query parameters and headers of `POST /rl/model-resources/{model_resources_id}/stop`,
    without the body: for callers that encode the body themselves (and then send it with the
    Content-Type given here)."""

    params: dict[str, Any] = {}

    params["force"] = force

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    return RequestParts(
        method=METHOD,
        url=PATH.format(
            model_resources_id=quote(str(model_resources_id), safe=""),
        ),
        params=params,
    )


ENDPOINT = Endpoint(
    method=METHOD,
    path=PATH,
    request_parts=request_parts,
    path_params=("model_resources_id",),
    body_model=None,
    parse_response=ModelResources.from_dict,
    operation_kind=None,
)
