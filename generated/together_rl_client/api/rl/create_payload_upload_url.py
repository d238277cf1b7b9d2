from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_data import ErrorData
from ...models.payload_upload_url import PayloadUploadUrl
from ...types import Endpoint, RequestParts, Response


def _get_kwargs(
    session_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/rl/training-sessions/{session_id}/payloads/upload-url".format(
            session_id=quote(str(session_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorData | PayloadUploadUrl | None:
    if response.status_code == 200:
        response_200 = PayloadUploadUrl.from_dict(response.json())

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
) -> Response[ErrorData | PayloadUploadUrl]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[ErrorData | PayloadUploadUrl]:
    """Get an upload URL for a large request body

     Not in the official SDK's typed API: its hand-written layer uses it for operation bodies
    over 0.5 MiB (524,288 bytes of compact JSON). Takes no body. The client then PUTs the full
    compact JSON body to `upload_url` WITHOUT the Authorization header (the URL is presigned),
    and POSTs the operation with a shrunk stand-in body (numeric arrays cut to their first 8
    elements) plus the top-level `payload_id`; the server validates and runs the uploaded body.
    The emulator points `upload_url` at itself (`PUT /_emulator/payloads/{payload_id}?token=...`).

    Args:
        session_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorData | PayloadUploadUrl]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> ErrorData | PayloadUploadUrl | None:
    """Get an upload URL for a large request body

     Not in the official SDK's typed API: its hand-written layer uses it for operation bodies
    over 0.5 MiB (524,288 bytes of compact JSON). Takes no body. The client then PUTs the full
    compact JSON body to `upload_url` WITHOUT the Authorization header (the URL is presigned),
    and POSTs the operation with a shrunk stand-in body (numeric arrays cut to their first 8
    elements) plus the top-level `payload_id`; the server validates and runs the uploaded body.
    The emulator points `upload_url` at itself (`PUT /_emulator/payloads/{payload_id}?token=...`).

    Args:
        session_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorData | PayloadUploadUrl
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[ErrorData | PayloadUploadUrl]:
    """Get an upload URL for a large request body

     Not in the official SDK's typed API: its hand-written layer uses it for operation bodies
    over 0.5 MiB (524,288 bytes of compact JSON). Takes no body. The client then PUTs the full
    compact JSON body to `upload_url` WITHOUT the Authorization header (the URL is presigned),
    and POSTs the operation with a shrunk stand-in body (numeric arrays cut to their first 8
    elements) plus the top-level `payload_id`; the server validates and runs the uploaded body.
    The emulator points `upload_url` at itself (`PUT /_emulator/payloads/{payload_id}?token=...`).

    Args:
        session_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorData | PayloadUploadUrl]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> ErrorData | PayloadUploadUrl | None:
    """Get an upload URL for a large request body

     Not in the official SDK's typed API: its hand-written layer uses it for operation bodies
    over 0.5 MiB (524,288 bytes of compact JSON). Takes no body. The client then PUTs the full
    compact JSON body to `upload_url` WITHOUT the Authorization header (the URL is presigned),
    and POSTs the operation with a shrunk stand-in body (numeric arrays cut to their first 8
    elements) plus the top-level `payload_id`; the server validates and runs the uploaded body.
    The emulator points `upload_url` at itself (`PUT /_emulator/payloads/{payload_id}?token=...`).

    Args:
        session_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorData | PayloadUploadUrl
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
        )
    ).parsed


METHOD = "POST"
PATH = "/rl/training-sessions/{session_id}/payloads/upload-url"


def request_parts(
    session_id: str,
) -> RequestParts:
    """Method, URL, query parameters and headers of `POST /rl/training-sessions/{session_id}/payloads/upload-url`,
    without the body: for callers that encode the body themselves (and then send it with the
    Content-Type given here)."""

    return RequestParts(
        method=METHOD,
        url=PATH.format(
            session_id=quote(str(session_id), safe=""),
        ),
    )


ENDPOINT = Endpoint(
    method=METHOD,
    path=PATH,
    request_parts=request_parts,
    path_params=("session_id",),
    body_model=None,
    parse_response=PayloadUploadUrl.from_dict,
    operation_kind=None,
)
