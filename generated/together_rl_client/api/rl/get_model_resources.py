from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_data import ErrorData
from ...models.model_resources import ModelResources
from ...types import Endpoint, RequestParts, Response


def _get_kwargs(
    model_resources_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/rl/model-resources/{model_resources_id}".format(
            model_resources_id=quote(str(model_resources_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorData | ModelResources | None:
    if response.status_code == 200:
        response_200 = ModelResources.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ErrorData.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = ErrorData.from_dict(response.json())

        return response_404

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
) -> Response[ErrorData | ModelResources]:
    """Get model resources

    Args:
        model_resources_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorData | ModelResources]
    """

    kwargs = _get_kwargs(
        model_resources_id=model_resources_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    model_resources_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> ErrorData | ModelResources | None:
    """Get model resources

    Args:
        model_resources_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorData | ModelResources
    """

    return sync_detailed(
        model_resources_id=model_resources_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    model_resources_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[ErrorData | ModelResources]:
    """Get model resources

    Args:
        model_resources_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorData | ModelResources]
    """

    kwargs = _get_kwargs(
        model_resources_id=model_resources_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    model_resources_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> ErrorData | ModelResources | None:
    """Get model resources

    Args:
        model_resources_id (str):

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
        )
    ).parsed


METHOD = "GET"
PATH = "/rl/model-resources/{model_resources_id}"


def request_parts(
    model_resources_id: str,
) -> RequestParts:
    """Method, URL, query parameters and headers of `GET /rl/model-resources/{model_resources_id}`,
    without the body: for callers that encode the body themselves (and then send it with the
    Content-Type given here)."""

    return RequestParts(
        method=METHOD,
        url=PATH.format(
            model_resources_id=quote(str(model_resources_id), safe=""),
        ),
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
