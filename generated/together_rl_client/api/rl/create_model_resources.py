from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_data import ErrorData
from ...models.model_resources import ModelResources
from ...models.model_resources_create import ModelResourcesCreate
from ...types import Endpoint, RequestParts, Response


def _get_kwargs(
    *,
    body: ModelResourcesCreate,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/rl/model-resources",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
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
    *,
    client: AuthenticatedClient | Client,
    body: ModelResourcesCreate,
) -> Response[ErrorData | ModelResources]:
    """Create model resources

     Reserves trainer (and optionally generator) capacity for one base model. The resource must
    be `MODEL_RESOURCES_STATUS_READY` before a training session can use it. An unknown
    `base_model` is refused with 400; see `GET /rl/supported-models`.

    Args:
        body (ModelResourcesCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorData | ModelResources]
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
    body: ModelResourcesCreate,
) -> ErrorData | ModelResources | None:
    """Create model resources

     Reserves trainer (and optionally generator) capacity for one base model. The resource must
    be `MODEL_RESOURCES_STATUS_READY` before a training session can use it. An unknown
    `base_model` is refused with 400; see `GET /rl/supported-models`.

    Args:
        body (ModelResourcesCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorData | ModelResources
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: ModelResourcesCreate,
) -> Response[ErrorData | ModelResources]:
    """Create model resources

     Reserves trainer (and optionally generator) capacity for one base model. The resource must
    be `MODEL_RESOURCES_STATUS_READY` before a training session can use it. An unknown
    `base_model` is refused with 400; see `GET /rl/supported-models`.

    Args:
        body (ModelResourcesCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorData | ModelResources]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: ModelResourcesCreate,
) -> ErrorData | ModelResources | None:
    """Create model resources

     Reserves trainer (and optionally generator) capacity for one base model. The resource must
    be `MODEL_RESOURCES_STATUS_READY` before a training session can use it. An unknown
    `base_model` is refused with 400; see `GET /rl/supported-models`.

    Args:
        body (ModelResourcesCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorData | ModelResources
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed


METHOD = "POST"
PATH = "/rl/model-resources"


def request_parts() -> RequestParts:
    """Method, URL, query parameters and headers of `POST /rl/model-resources`,
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
    body_model=ModelResourcesCreate,
    parse_response=ModelResources.from_dict,
    operation_kind=None,
)
