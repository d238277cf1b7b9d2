from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.checkpoint_type import CheckpointType
from ...models.checkpoints_list_response import CheckpointsListResponse
from ...models.error_data import ErrorData
from ...types import UNSET, Endpoint, RequestParts, Response, Unset


def _get_kwargs(
    *,
    after: str | Unset = UNSET,
    base_model: str | Unset = UNSET,
    limit: int | Unset = 20,
    session_id: str | Unset = UNSET,
    type_: CheckpointType | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["after"] = after

    params["base_model"] = base_model

    params["limit"] = limit

    params["session_id"] = session_id

    json_type_: str | Unset = UNSET
    if not isinstance(type_, Unset):
        json_type_ = type_.value

    params["type"] = json_type_

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/rl/checkpoints",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> CheckpointsListResponse | ErrorData | None:
    if response.status_code == 200:
        response_200 = CheckpointsListResponse.from_dict(response.json())

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
) -> Response[CheckpointsListResponse | ErrorData]:
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
    base_model: str | Unset = UNSET,
    limit: int | Unset = 20,
    session_id: str | Unset = UNSET,
    type_: CheckpointType | Unset = UNSET,
) -> Response[CheckpointsListResponse | ErrorData]:
    """List checkpoints

     The caller's checkpoints of both kinds (or of `type`), newest first. Page with `after`
    set to the previous page's `meta.next_cursor`.

    Args:
        after (str | Unset):
        base_model (str | Unset):
        limit (int | Unset):  Default: 20.
        session_id (str | Unset):
        type_ (CheckpointType | Unset): `CHECKPOINT_TYPE_TRAINING`: the full training state
            (weights, optimizer state, step), for
            resuming a session. `CHECKPOINT_TYPE_INFERENCE`: a model ready for serving or download.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CheckpointsListResponse | ErrorData]
    """

    kwargs = _get_kwargs(
        after=after,
        base_model=base_model,
        limit=limit,
        session_id=session_id,
        type_=type_,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    base_model: str | Unset = UNSET,
    limit: int | Unset = 20,
    session_id: str | Unset = UNSET,
    type_: CheckpointType | Unset = UNSET,
) -> CheckpointsListResponse | ErrorData | None:
    """List checkpoints

     The caller's checkpoints of both kinds (or of `type`), newest first. Page with `after`
    set to the previous page's `meta.next_cursor`.

    Args:
        after (str | Unset):
        base_model (str | Unset):
        limit (int | Unset):  Default: 20.
        session_id (str | Unset):
        type_ (CheckpointType | Unset): `CHECKPOINT_TYPE_TRAINING`: the full training state
            (weights, optimizer state, step), for
            resuming a session. `CHECKPOINT_TYPE_INFERENCE`: a model ready for serving or download.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CheckpointsListResponse | ErrorData
    """

    return sync_detailed(
        client=client,
        after=after,
        base_model=base_model,
        limit=limit,
        session_id=session_id,
        type_=type_,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    base_model: str | Unset = UNSET,
    limit: int | Unset = 20,
    session_id: str | Unset = UNSET,
    type_: CheckpointType | Unset = UNSET,
) -> Response[CheckpointsListResponse | ErrorData]:
    """List checkpoints

     The caller's checkpoints of both kinds (or of `type`), newest first. Page with `after`
    set to the previous page's `meta.next_cursor`.

    Args:
        after (str | Unset):
        base_model (str | Unset):
        limit (int | Unset):  Default: 20.
        session_id (str | Unset):
        type_ (CheckpointType | Unset): `CHECKPOINT_TYPE_TRAINING`: the full training state
            (weights, optimizer state, step), for
            resuming a session. `CHECKPOINT_TYPE_INFERENCE`: a model ready for serving or download.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CheckpointsListResponse | ErrorData]
    """

    kwargs = _get_kwargs(
        after=after,
        base_model=base_model,
        limit=limit,
        session_id=session_id,
        type_=type_,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    base_model: str | Unset = UNSET,
    limit: int | Unset = 20,
    session_id: str | Unset = UNSET,
    type_: CheckpointType | Unset = UNSET,
) -> CheckpointsListResponse | ErrorData | None:
    """List checkpoints

     The caller's checkpoints of both kinds (or of `type`), newest first. Page with `after`
    set to the previous page's `meta.next_cursor`.

    Args:
        after (str | Unset):
        base_model (str | Unset):
        limit (int | Unset):  Default: 20.
        session_id (str | Unset):
        type_ (CheckpointType | Unset): `CHECKPOINT_TYPE_TRAINING`: the full training state
            (weights, optimizer state, step), for
            resuming a session. `CHECKPOINT_TYPE_INFERENCE`: a model ready for serving or download.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CheckpointsListResponse | ErrorData
    """

    return (
        await asyncio_detailed(
            client=client,
            after=after,
            base_model=base_model,
            limit=limit,
            session_id=session_id,
            type_=type_,
        )
    ).parsed


METHOD = "GET"
PATH = "/rl/checkpoints"


def request_parts(
    *,
    after: str | Unset = UNSET,
    base_model: str | Unset = UNSET,
    limit: int | Unset = 20,
    session_id: str | Unset = UNSET,
    type_: CheckpointType | Unset = UNSET,
) -> RequestParts:
    """Method, URL, query parameters and headers of `GET /rl/checkpoints`,
    without the body: for callers that encode the body themselves (and then send it with the
    Content-Type given here)."""

    params: dict[str, Any] = {}

    params["after"] = after

    params["base_model"] = base_model

    params["limit"] = limit

    params["session_id"] = session_id

    json_type_: str | Unset = UNSET
    if not isinstance(type_, Unset):
        json_type_ = type_.value

    params["type"] = json_type_

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
    parse_response=CheckpointsListResponse.from_dict,
    operation_kind=None,
)
