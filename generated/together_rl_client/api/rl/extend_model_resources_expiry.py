from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_data import ErrorData
from ...models.model_resources import ModelResources
from ...models.model_resources_extend_expiry import ModelResourcesExtendExpiry
from ...types import Endpoint, RequestParts, Response


def _get_kwargs(
    model_resources_id: str,
    *,
    body: ModelResourcesExtendExpiry,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/rl/model-resources/{model_resources_id}/extend-expiry".format(
            model_resources_id=quote(str(model_resources_id), safe=""),
        ),
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
    body: ModelResourcesExtendExpiry,
) -> Response[ErrorData | ModelResources]:
    """Keep model resources up without activity

     Moves `expires_at` to at least now + `seconds`, never earlier (a smaller value changes
    nothing; a later one than 9999-12-31T23:59:59Z is that). Every operation on the resources' sessions
    already keeps them up for
    `inactive_timeout` seconds; use this to stay up longer without operations, e.g. while
    computing rewards. Refused with 400 unless the status is `MODEL_RESOURCES_STATUS_READY`.

    Args:
        model_resources_id (str):
        body (ModelResourcesExtendExpiry):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorData | ModelResources]
    """

    kwargs = _get_kwargs(
        model_resources_id=model_resources_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    model_resources_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: ModelResourcesExtendExpiry,
) -> ErrorData | ModelResources | None:
    """Keep model resources up without activity

     Moves `expires_at` to at least now + `seconds`, never earlier (a smaller value changes
    nothing; a later one than 9999-12-31T23:59:59Z is that). Every operation on the resources' sessions
    already keeps them up for
    `inactive_timeout` seconds; use this to stay up longer without operations, e.g. while
    computing rewards. Refused with 400 unless the status is `MODEL_RESOURCES_STATUS_READY`.

    Args:
        model_resources_id (str):
        body (ModelResourcesExtendExpiry):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorData | ModelResources
    """

    return sync_detailed(
        model_resources_id=model_resources_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    model_resources_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: ModelResourcesExtendExpiry,
) -> Response[ErrorData | ModelResources]:
    """Keep model resources up without activity

     Moves `expires_at` to at least now + `seconds`, never earlier (a smaller value changes
    nothing; a later one than 9999-12-31T23:59:59Z is that). Every operation on the resources' sessions
    already keeps them up for
    `inactive_timeout` seconds; use this to stay up longer without operations, e.g. while
    computing rewards. Refused with 400 unless the status is `MODEL_RESOURCES_STATUS_READY`.

    Args:
        model_resources_id (str):
        body (ModelResourcesExtendExpiry):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorData | ModelResources]
    """

    kwargs = _get_kwargs(
        model_resources_id=model_resources_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    model_resources_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: ModelResourcesExtendExpiry,
) -> ErrorData | ModelResources | None:
    """Keep model resources up without activity

     Moves `expires_at` to at least now + `seconds`, never earlier (a smaller value changes
    nothing; a later one than 9999-12-31T23:59:59Z is that). Every operation on the resources' sessions
    already keeps them up for
    `inactive_timeout` seconds; use this to stay up longer without operations, e.g. while
    computing rewards. Refused with 400 unless the status is `MODEL_RESOURCES_STATUS_READY`.

    Args:
        model_resources_id (str):
        body (ModelResourcesExtendExpiry):

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
            body=body,
        )
    ).parsed


METHOD = "POST"
PATH = "/rl/model-resources/{model_resources_id}/extend-expiry"


def request_parts(
    model_resources_id: str,
) -> RequestParts:
    """Method, URL, query parameters and headers of `POST /rl/model-resources/{model_resources_id}/extend-expiry`,
    without the body: for callers that encode the body themselves (and then send it with the
    Content-Type given here)."""
    headers: dict[str, Any] = {}

    headers["Content-Type"] = "application/json"
    return RequestParts(
        method=METHOD,
        url=PATH.format(
            model_resources_id=quote(str(model_resources_id), safe=""),
        ),
        headers=headers,
    )


ENDPOINT = Endpoint(
    method=METHOD,
    path=PATH,
    request_parts=request_parts,
    path_params=("model_resources_id",),
    body_model=ModelResourcesExtendExpiry,
    parse_response=ModelResources.from_dict,
    operation_kind=None,
)
