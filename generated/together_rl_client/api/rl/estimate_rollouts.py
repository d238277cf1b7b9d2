from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_data import ErrorData
from ...models.rollout_estimate import RolloutEstimate
from ...models.rollout_estimate_request import RolloutEstimateRequest
from ...types import Endpoint, RequestParts, Response


def _get_kwargs(
    *,
    body: RolloutEstimateRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/rl/rollouts/estimate",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorData | RolloutEstimate | None:
    if response.status_code == 200:
        response_200 = RolloutEstimate.from_dict(response.json())

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
) -> Response[ErrorData | RolloutEstimate]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: RolloutEstimateRequest,
) -> Response[ErrorData | RolloutEstimate]:
    """Estimate rollout time and price

     Estimates, for a supported model and GPU type, the rollout-only time, the generator
    GPU-hours, the billed GPU-hours of the whole model resource and the price, without
    creating anything. Billed GPU-hours count every GPU of the resource (the trainer and the
    generators) for that time, only the generators for a sampling-only resource; the price is
    billed GPU-hours times the list price per GPU-hour. The estimate assumes saturated GPUs
    and leaves out resource start-up, rewards, environment steps and optimizer steps.
    Published in the API reference (`POST /v1/rl/rollouts/estimate`), in no SDK release yet.
    The answer's field names are this project's (the reference does not state them); the
    emulator answers from its GPU model (`docs/emulator.md`, "The GPU model").

    Args:
        body (RolloutEstimateRequest): Episode shape, model, GPU type and concurrency for a
            rollout-only estimate (the letters
            are the reference's). The optional fields beyond `distinct_prompts_per_replica` and
            `episodes_per_prompt` (GPU type, training mode, resource layout) are named after
            `POST /rl/model-resources`; the reference's own names for them are unconfirmed.
            The rule JSON Schema cannot state is `x-at-least`: each named property is at least the
            property it names (when both are present).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorData | RolloutEstimate]
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
    body: RolloutEstimateRequest,
) -> ErrorData | RolloutEstimate | None:
    """Estimate rollout time and price

     Estimates, for a supported model and GPU type, the rollout-only time, the generator
    GPU-hours, the billed GPU-hours of the whole model resource and the price, without
    creating anything. Billed GPU-hours count every GPU of the resource (the trainer and the
    generators) for that time, only the generators for a sampling-only resource; the price is
    billed GPU-hours times the list price per GPU-hour. The estimate assumes saturated GPUs
    and leaves out resource start-up, rewards, environment steps and optimizer steps.
    Published in the API reference (`POST /v1/rl/rollouts/estimate`), in no SDK release yet.
    The answer's field names are this project's (the reference does not state them); the
    emulator answers from its GPU model (`docs/emulator.md`, "The GPU model").

    Args:
        body (RolloutEstimateRequest): Episode shape, model, GPU type and concurrency for a
            rollout-only estimate (the letters
            are the reference's). The optional fields beyond `distinct_prompts_per_replica` and
            `episodes_per_prompt` (GPU type, training mode, resource layout) are named after
            `POST /rl/model-resources`; the reference's own names for them are unconfirmed.
            The rule JSON Schema cannot state is `x-at-least`: each named property is at least the
            property it names (when both are present).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorData | RolloutEstimate
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: RolloutEstimateRequest,
) -> Response[ErrorData | RolloutEstimate]:
    """Estimate rollout time and price

     Estimates, for a supported model and GPU type, the rollout-only time, the generator
    GPU-hours, the billed GPU-hours of the whole model resource and the price, without
    creating anything. Billed GPU-hours count every GPU of the resource (the trainer and the
    generators) for that time, only the generators for a sampling-only resource; the price is
    billed GPU-hours times the list price per GPU-hour. The estimate assumes saturated GPUs
    and leaves out resource start-up, rewards, environment steps and optimizer steps.
    Published in the API reference (`POST /v1/rl/rollouts/estimate`), in no SDK release yet.
    The answer's field names are this project's (the reference does not state them); the
    emulator answers from its GPU model (`docs/emulator.md`, "The GPU model").

    Args:
        body (RolloutEstimateRequest): Episode shape, model, GPU type and concurrency for a
            rollout-only estimate (the letters
            are the reference's). The optional fields beyond `distinct_prompts_per_replica` and
            `episodes_per_prompt` (GPU type, training mode, resource layout) are named after
            `POST /rl/model-resources`; the reference's own names for them are unconfirmed.
            The rule JSON Schema cannot state is `x-at-least`: each named property is at least the
            property it names (when both are present).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorData | RolloutEstimate]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: RolloutEstimateRequest,
) -> ErrorData | RolloutEstimate | None:
    """Estimate rollout time and price

     Estimates, for a supported model and GPU type, the rollout-only time, the generator
    GPU-hours, the billed GPU-hours of the whole model resource and the price, without
    creating anything. Billed GPU-hours count every GPU of the resource (the trainer and the
    generators) for that time, only the generators for a sampling-only resource; the price is
    billed GPU-hours times the list price per GPU-hour. The estimate assumes saturated GPUs
    and leaves out resource start-up, rewards, environment steps and optimizer steps.
    Published in the API reference (`POST /v1/rl/rollouts/estimate`), in no SDK release yet.
    The answer's field names are this project's (the reference does not state them); the
    emulator answers from its GPU model (`docs/emulator.md`, "The GPU model").

    Args:
        body (RolloutEstimateRequest): Episode shape, model, GPU type and concurrency for a
            rollout-only estimate (the letters
            are the reference's). The optional fields beyond `distinct_prompts_per_replica` and
            `episodes_per_prompt` (GPU type, training mode, resource layout) are named after
            `POST /rl/model-resources`; the reference's own names for them are unconfirmed.
            The rule JSON Schema cannot state is `x-at-least`: each named property is at least the
            property it names (when both are present).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorData | RolloutEstimate
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed


METHOD = "POST"
PATH = "/rl/rollouts/estimate"


def request_parts() -> RequestParts:
    """Method, URL, query parameters and headers of `POST /rl/rollouts/estimate`,
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
    body_model=RolloutEstimateRequest,
    parse_response=RolloutEstimate.from_dict,
    operation_kind=None,
)
