from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.checkpoint_download_response import CheckpointDownloadResponse
from ...models.checkpoint_variant import CheckpointVariant
from ...models.error_data import ErrorData
from ...types import UNSET, Endpoint, RequestParts, Response


def _get_kwargs(
    checkpoint_id: str,
    *,
    variant: CheckpointVariant,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_variant = variant.value
    params["variant"] = json_variant

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/rl/checkpoints/{checkpoint_id}/download".format(
            checkpoint_id=quote(str(checkpoint_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> CheckpointDownloadResponse | ErrorData | None:
    if response.status_code == 200:
        response_200 = CheckpointDownloadResponse.from_dict(response.json())

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
) -> Response[CheckpointDownloadResponse | ErrorData]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    checkpoint_id: str,
    *,
    client: AuthenticatedClient | Client,
    variant: CheckpointVariant,
) -> Response[CheckpointDownloadResponse | ErrorData]:
    """Get download URLs for a checkpoint's files

     Presigned URLs (GET them without Authorization) for the files of an inference
    checkpoint: the weights as `safetensors` and a `manifest.json` describing them. Only
    inference checkpoints can be downloaded; a training checkpoint is refused with 400.
    `CHECKPOINT_VARIANT_ADAPTER` is the LoRA adapter only, so it fits checkpoints of LoRA
    resources only (400 otherwise); `CHECKPOINT_VARIANT_MERGED` is the full model with the
    trained weights applied. `CHECKPOINT_VARIANT_UNSPECIFIED` (the proto default) means the
    checkpoint's own form: the adapter for LoRA, the merged model otherwise.
    The emulator's files: `adapter_model.safetensors` (ADAPTER: the trained weights minus
    the base weights) or `model.safetensors` (MERGED: the trained weights), float32 tensors
    named after the emulator's policy parameters, and `manifest.json`
    (`{checkpoint_id, base_model, step, variant, files: [{filename, size, sha256}], tensors:
    {name: {dtype, shape}}}`).

    Args:
        checkpoint_id (str):
        variant (CheckpointVariant): Files to download. `MERGED`: the full model with the trained
            weights applied. `ADAPTER`:
            the LoRA adapter weights only (checkpoints of LoRA resources only). `UNSPECIFIED`: the
            checkpoint's own form (adapter for LoRA, merged otherwise).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CheckpointDownloadResponse | ErrorData]
    """

    kwargs = _get_kwargs(
        checkpoint_id=checkpoint_id,
        variant=variant,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    checkpoint_id: str,
    *,
    client: AuthenticatedClient | Client,
    variant: CheckpointVariant,
) -> CheckpointDownloadResponse | ErrorData | None:
    """Get download URLs for a checkpoint's files

     Presigned URLs (GET them without Authorization) for the files of an inference
    checkpoint: the weights as `safetensors` and a `manifest.json` describing them. Only
    inference checkpoints can be downloaded; a training checkpoint is refused with 400.
    `CHECKPOINT_VARIANT_ADAPTER` is the LoRA adapter only, so it fits checkpoints of LoRA
    resources only (400 otherwise); `CHECKPOINT_VARIANT_MERGED` is the full model with the
    trained weights applied. `CHECKPOINT_VARIANT_UNSPECIFIED` (the proto default) means the
    checkpoint's own form: the adapter for LoRA, the merged model otherwise.
    The emulator's files: `adapter_model.safetensors` (ADAPTER: the trained weights minus
    the base weights) or `model.safetensors` (MERGED: the trained weights), float32 tensors
    named after the emulator's policy parameters, and `manifest.json`
    (`{checkpoint_id, base_model, step, variant, files: [{filename, size, sha256}], tensors:
    {name: {dtype, shape}}}`).

    Args:
        checkpoint_id (str):
        variant (CheckpointVariant): Files to download. `MERGED`: the full model with the trained
            weights applied. `ADAPTER`:
            the LoRA adapter weights only (checkpoints of LoRA resources only). `UNSPECIFIED`: the
            checkpoint's own form (adapter for LoRA, merged otherwise).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CheckpointDownloadResponse | ErrorData
    """

    return sync_detailed(
        checkpoint_id=checkpoint_id,
        client=client,
        variant=variant,
    ).parsed


async def asyncio_detailed(
    checkpoint_id: str,
    *,
    client: AuthenticatedClient | Client,
    variant: CheckpointVariant,
) -> Response[CheckpointDownloadResponse | ErrorData]:
    """Get download URLs for a checkpoint's files

     Presigned URLs (GET them without Authorization) for the files of an inference
    checkpoint: the weights as `safetensors` and a `manifest.json` describing them. Only
    inference checkpoints can be downloaded; a training checkpoint is refused with 400.
    `CHECKPOINT_VARIANT_ADAPTER` is the LoRA adapter only, so it fits checkpoints of LoRA
    resources only (400 otherwise); `CHECKPOINT_VARIANT_MERGED` is the full model with the
    trained weights applied. `CHECKPOINT_VARIANT_UNSPECIFIED` (the proto default) means the
    checkpoint's own form: the adapter for LoRA, the merged model otherwise.
    The emulator's files: `adapter_model.safetensors` (ADAPTER: the trained weights minus
    the base weights) or `model.safetensors` (MERGED: the trained weights), float32 tensors
    named after the emulator's policy parameters, and `manifest.json`
    (`{checkpoint_id, base_model, step, variant, files: [{filename, size, sha256}], tensors:
    {name: {dtype, shape}}}`).

    Args:
        checkpoint_id (str):
        variant (CheckpointVariant): Files to download. `MERGED`: the full model with the trained
            weights applied. `ADAPTER`:
            the LoRA adapter weights only (checkpoints of LoRA resources only). `UNSPECIFIED`: the
            checkpoint's own form (adapter for LoRA, merged otherwise).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CheckpointDownloadResponse | ErrorData]
    """

    kwargs = _get_kwargs(
        checkpoint_id=checkpoint_id,
        variant=variant,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    checkpoint_id: str,
    *,
    client: AuthenticatedClient | Client,
    variant: CheckpointVariant,
) -> CheckpointDownloadResponse | ErrorData | None:
    """Get download URLs for a checkpoint's files

     Presigned URLs (GET them without Authorization) for the files of an inference
    checkpoint: the weights as `safetensors` and a `manifest.json` describing them. Only
    inference checkpoints can be downloaded; a training checkpoint is refused with 400.
    `CHECKPOINT_VARIANT_ADAPTER` is the LoRA adapter only, so it fits checkpoints of LoRA
    resources only (400 otherwise); `CHECKPOINT_VARIANT_MERGED` is the full model with the
    trained weights applied. `CHECKPOINT_VARIANT_UNSPECIFIED` (the proto default) means the
    checkpoint's own form: the adapter for LoRA, the merged model otherwise.
    The emulator's files: `adapter_model.safetensors` (ADAPTER: the trained weights minus
    the base weights) or `model.safetensors` (MERGED: the trained weights), float32 tensors
    named after the emulator's policy parameters, and `manifest.json`
    (`{checkpoint_id, base_model, step, variant, files: [{filename, size, sha256}], tensors:
    {name: {dtype, shape}}}`).

    Args:
        checkpoint_id (str):
        variant (CheckpointVariant): Files to download. `MERGED`: the full model with the trained
            weights applied. `ADAPTER`:
            the LoRA adapter weights only (checkpoints of LoRA resources only). `UNSPECIFIED`: the
            checkpoint's own form (adapter for LoRA, merged otherwise).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CheckpointDownloadResponse | ErrorData
    """

    return (
        await asyncio_detailed(
            checkpoint_id=checkpoint_id,
            client=client,
            variant=variant,
        )
    ).parsed


METHOD = "GET"
PATH = "/rl/checkpoints/{checkpoint_id}/download"


def request_parts(
    checkpoint_id: str,
    *,
    variant: CheckpointVariant,
) -> RequestParts:
    """Method, URL, query parameters and headers of `GET /rl/checkpoints/{checkpoint_id}/download`,
    without the body: for callers that encode the body themselves (and then send it with the
    Content-Type given here)."""

    params: dict[str, Any] = {}

    json_variant = variant.value
    params["variant"] = json_variant

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    return RequestParts(
        method=METHOD,
        url=PATH.format(
            checkpoint_id=quote(str(checkpoint_id), safe=""),
        ),
        params=params,
    )


ENDPOINT = Endpoint(
    method=METHOD,
    path=PATH,
    request_parts=request_parts,
    path_params=("checkpoint_id",),
    body_model=None,
    parse_response=CheckpointDownloadResponse.from_dict,
    operation_kind=None,
)
