from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_data import ErrorData
from ...models.optim_step_body import OptimStepBody
from ...models.optim_step_operation import OptimStepOperation
from ...types import Endpoint, RequestParts, Response


def _get_kwargs(
    session_id: str,
    *,
    body: OptimStepBody,
    idempotency_key: str,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/rl/training-sessions/{session_id}/operations/optim-step".format(
            session_id=quote(str(session_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorData | OptimStepOperation | None:
    if response.status_code == 200:
        response_200 = OptimStepOperation.from_dict(response.json())

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

    if response.status_code == 422:
        response_422 = ErrorData.from_dict(response.json())

        return response_422

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
) -> Response[ErrorData | OptimStepOperation]:
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
    body: OptimStepBody,
    idempotency_key: str,
) -> Response[ErrorData | OptimStepOperation]:
    """Submit an optimizer step

     Applies the gradients accumulated by forward-backward passes since the last step (then
    clears them), after clipping them by global norm: with AdamW (`adam_params`) on model
    resources created with `optimizer_config.adam` or without `optimizer_config`, with Muon
    (`muon_params`) on resources created with `optimizer_config.muon`. Muon updates the 2-D
    parameters (momentum, Newton-Schulz orthogonalisation) and steps the others with the
    AdamW of `muon_params.adam` (docs/emulator.md, "Muon"). The new weights are not used
    for sampling until a weights-sync. Output: the new trainer step.

    Args:
        session_id (str):
        idempotency_key (str):
        body (OptimStepBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorData | OptimStepOperation]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: OptimStepBody,
    idempotency_key: str,
) -> ErrorData | OptimStepOperation | None:
    """Submit an optimizer step

     Applies the gradients accumulated by forward-backward passes since the last step (then
    clears them), after clipping them by global norm: with AdamW (`adam_params`) on model
    resources created with `optimizer_config.adam` or without `optimizer_config`, with Muon
    (`muon_params`) on resources created with `optimizer_config.muon`. Muon updates the 2-D
    parameters (momentum, Newton-Schulz orthogonalisation) and steps the others with the
    AdamW of `muon_params.adam` (docs/emulator.md, "Muon"). The new weights are not used
    for sampling until a weights-sync. Output: the new trainer step.

    Args:
        session_id (str):
        idempotency_key (str):
        body (OptimStepBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorData | OptimStepOperation
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: OptimStepBody,
    idempotency_key: str,
) -> Response[ErrorData | OptimStepOperation]:
    """Submit an optimizer step

     Applies the gradients accumulated by forward-backward passes since the last step (then
    clears them), after clipping them by global norm: with AdamW (`adam_params`) on model
    resources created with `optimizer_config.adam` or without `optimizer_config`, with Muon
    (`muon_params`) on resources created with `optimizer_config.muon`. Muon updates the 2-D
    parameters (momentum, Newton-Schulz orthogonalisation) and steps the others with the
    AdamW of `muon_params.adam` (docs/emulator.md, "Muon"). The new weights are not used
    for sampling until a weights-sync. Output: the new trainer step.

    Args:
        session_id (str):
        idempotency_key (str):
        body (OptimStepBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorData | OptimStepOperation]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: OptimStepBody,
    idempotency_key: str,
) -> ErrorData | OptimStepOperation | None:
    """Submit an optimizer step

     Applies the gradients accumulated by forward-backward passes since the last step (then
    clears them), after clipping them by global norm: with AdamW (`adam_params`) on model
    resources created with `optimizer_config.adam` or without `optimizer_config`, with Muon
    (`muon_params`) on resources created with `optimizer_config.muon`. Muon updates the 2-D
    parameters (momentum, Newton-Schulz orthogonalisation) and steps the others with the
    AdamW of `muon_params.adam` (docs/emulator.md, "Muon"). The new weights are not used
    for sampling until a weights-sync. Output: the new trainer step.

    Args:
        session_id (str):
        idempotency_key (str):
        body (OptimStepBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorData | OptimStepOperation
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed


METHOD = "POST"
PATH = "/rl/training-sessions/{session_id}/operations/optim-step"


def request_parts(
    session_id: str,
    *,
    idempotency_key: str,
) -> RequestParts:
    """Method, URL, query parameters and headers of `POST /rl/training-sessions/{session_id}/operations/optim-step`,
    without the body: for callers that encode the body themselves (and then send it with the
    Content-Type given here)."""
    headers: dict[str, Any] = {}
    headers["Idempotency-Key"] = idempotency_key

    headers["Content-Type"] = "application/json"
    return RequestParts(
        method=METHOD,
        url=PATH.format(
            session_id=quote(str(session_id), safe=""),
        ),
        headers=headers,
    )


ENDPOINT = Endpoint(
    method=METHOD,
    path=PATH,
    request_parts=request_parts,
    path_params=("session_id",),
    body_model=OptimStepBody,
    parse_response=OptimStepOperation.from_dict,
    operation_kind="optim-step",
)
