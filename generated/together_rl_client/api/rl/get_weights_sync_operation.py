from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_data import ErrorData
from ...models.weights_sync_operation import WeightsSyncOperation
from ...types import Endpoint, RequestParts, Response


def _get_kwargs(
    session_id: str,
    operation_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/rl/training-sessions/{session_id}/operations/weights-sync/{operation_id}".format(
            session_id=quote(str(session_id), safe=""),
            operation_id=quote(str(operation_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorData | WeightsSyncOperation | None:
    if response.status_code == 200:
        response_200 = WeightsSyncOperation.from_dict(response.json())

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
) -> Response[ErrorData | WeightsSyncOperation]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    session_id: str,
    operation_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[ErrorData | WeightsSyncOperation]:
    """Get a weights-sync operation

    Args:
        session_id (str):
        operation_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorData | WeightsSyncOperation]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        operation_id=operation_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    operation_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> ErrorData | WeightsSyncOperation | None:
    """Get a weights-sync operation

    Args:
        session_id (str):
        operation_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorData | WeightsSyncOperation
    """

    return sync_detailed(
        session_id=session_id,
        operation_id=operation_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    operation_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[ErrorData | WeightsSyncOperation]:
    """Get a weights-sync operation

    Args:
        session_id (str):
        operation_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorData | WeightsSyncOperation]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        operation_id=operation_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    operation_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> ErrorData | WeightsSyncOperation | None:
    """Get a weights-sync operation

    Args:
        session_id (str):
        operation_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorData | WeightsSyncOperation
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            operation_id=operation_id,
            client=client,
        )
    ).parsed


METHOD = "GET"
PATH = "/rl/training-sessions/{session_id}/operations/weights-sync/{operation_id}"


def request_parts(
    session_id: str,
    operation_id: str,
) -> RequestParts:
    """Method, URL, query parameters and headers of `GET /rl/training-sessions/{session_id}/operations/weights-sync/{operation_id}`,
    without the body: for callers that encode the body themselves (and then send it with the
    Content-Type given here)."""

    return RequestParts(
        method=METHOD,
        url=PATH.format(
            session_id=quote(str(session_id), safe=""),
            operation_id=quote(str(operation_id), safe=""),
        ),
    )


ENDPOINT = Endpoint(
    method=METHOD,
    path=PATH,
    request_parts=request_parts,
    path_params=(
        "session_id",
        "operation_id",
    ),
    body_model=None,
    parse_response=WeightsSyncOperation.from_dict,
    operation_kind="weights-sync",
)
