from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_data import ErrorData
from ...models.model_resources_list_response import ModelResourcesListResponse
from ...models.model_resources_status import ModelResourcesStatus
from ...types import UNSET, Endpoint, RequestParts, Response, Unset


def _get_kwargs(
    *,
    after: str | Unset = UNSET,
    limit: int | Unset = 20,
    created_by: str | Unset = UNSET,
    status: list[ModelResourcesStatus] | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["after"] = after

    params["limit"] = limit

    params["created_by"] = created_by

    json_status: list[str] | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = []
        for status_item_data in status:
            status_item = status_item_data.value
            json_status.append(status_item)

    params["status"] = json_status

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/rl/model-resources",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorData | ModelResourcesListResponse | None:
    if response.status_code == 200:
        response_200 = ModelResourcesListResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorData.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorData.from_dict(response.json())

        return response_401

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
) -> Response[ErrorData | ModelResourcesListResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    limit: int | Unset = 20,
    created_by: str | Unset = UNSET,
    status: list[ModelResourcesStatus] | Unset = UNSET,
) -> Response[ErrorData | ModelResourcesListResponse]:
    """List model resources

     Newest first. Page with `after` set to the previous page's `meta.next_cursor`.

    Args:
        after (str | Unset):
        limit (int | Unset):  Default: 20.
        created_by (str | Unset):
        status (list[ModelResourcesStatus] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorData | ModelResourcesListResponse]
    """

    kwargs = _get_kwargs(
        after=after,
        limit=limit,
        created_by=created_by,
        status=status,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    limit: int | Unset = 20,
    created_by: str | Unset = UNSET,
    status: list[ModelResourcesStatus] | Unset = UNSET,
) -> ErrorData | ModelResourcesListResponse | None:
    """List model resources

     Newest first. Page with `after` set to the previous page's `meta.next_cursor`.

    Args:
        after (str | Unset):
        limit (int | Unset):  Default: 20.
        created_by (str | Unset):
        status (list[ModelResourcesStatus] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorData | ModelResourcesListResponse
    """

    return sync_detailed(
        client=client,
        after=after,
        limit=limit,
        created_by=created_by,
        status=status,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    limit: int | Unset = 20,
    created_by: str | Unset = UNSET,
    status: list[ModelResourcesStatus] | Unset = UNSET,
) -> Response[ErrorData | ModelResourcesListResponse]:
    """List model resources

     Newest first. Page with `after` set to the previous page's `meta.next_cursor`.

    Args:
        after (str | Unset):
        limit (int | Unset):  Default: 20.
        created_by (str | Unset):
        status (list[ModelResourcesStatus] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorData | ModelResourcesListResponse]
    """

    kwargs = _get_kwargs(
        after=after,
        limit=limit,
        created_by=created_by,
        status=status,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    limit: int | Unset = 20,
    created_by: str | Unset = UNSET,
    status: list[ModelResourcesStatus] | Unset = UNSET,
) -> ErrorData | ModelResourcesListResponse | None:
    """List model resources

     Newest first. Page with `after` set to the previous page's `meta.next_cursor`.

    Args:
        after (str | Unset):
        limit (int | Unset):  Default: 20.
        created_by (str | Unset):
        status (list[ModelResourcesStatus] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorData | ModelResourcesListResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            after=after,
            limit=limit,
            created_by=created_by,
            status=status,
        )
    ).parsed


METHOD = "GET"
PATH = "/rl/model-resources"


def request_parts(
    *,
    after: str | Unset = UNSET,
    limit: int | Unset = 20,
    created_by: str | Unset = UNSET,
    status: list[ModelResourcesStatus] | Unset = UNSET,
) -> RequestParts:
    """Method, URL, query parameters and headers of `GET /rl/model-resources`,
    without the body: for callers that encode the body themselves (and then send it with the
    Content-Type given here)."""

    params: dict[str, Any] = {}

    params["after"] = after

    params["limit"] = limit

    params["created_by"] = created_by

    json_status: list[str] | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = []
        for status_item_data in status:
            status_item = status_item_data.value
            json_status.append(status_item)

    params["status"] = json_status

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    return RequestParts(
        method=METHOD,
        url=PATH,
        params=params,
    )


ENDPOINT = Endpoint(
    method=METHOD,
    path=PATH,
    request_parts=request_parts,
    path_params=(),
    body_model=None,
    parse_response=ModelResourcesListResponse.from_dict,
    operation_kind=None,
)
