"""``client.model_resources``, ``client.rollouts``, ``client.checkpoints``, and the handle on model
resources."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Unpack

from together_rl_client import models
from together_rl_client.api import rl
from together_rl_client.models import ModelResources as ModelResourcesInfo

from . import _fields, _payloads
from ._async_http import AsyncClientCore
from ._async_sessions import AsyncResourceAPI, AsyncSession, AsyncSessionsAPI
from ._keep_alive import AsyncKeepAlive
from ._schema import enum_member

__all__ = [
    "AsyncCheckpointsAPI",
    "AsyncModelResources",
    "AsyncModelResourcesAPI",
    "AsyncRolloutsAPI",
]


class AsyncModelResourcesAPI(AsyncResourceAPI):
    """``client.model_resources``: the GPUs that bill until stopped."""

    async def create(
        self,
        base_model: str,
        *,
        wait: bool = True,
        timeout: float | None = 3600.0,
        **options: Unpack[_fields.ModelResourcesCreateKeywords],
    ) -> ModelResourcesInfo:
        """Create model resources (``options``: the other ``ModelResourcesCreate`` fields) and,
        with ``wait``, poll until READY (``ResourceStateError`` on ERROR/STOPPED)."""
        body = {"base_model": base_model, **options}
        info = await self._client._call(rl.create_model_resources.ENDPOINT, body)
        if wait:
            info = await self._client._wait_ready(info, rl.get_model_resources.ENDPOINT, timeout)
        return info

    async def get(self, model_resources_id: str) -> ModelResourcesInfo:
        """The model resources as they are now."""
        return await self._client._call(rl.get_model_resources.ENDPOINT, None, model_resources_id)

    async def open(
        self,
        base_model: str,
        *,
        timeout: float | None = 3600.0,
        **options: Unpack[_fields.ModelResourcesCreateKeywords],
    ) -> AsyncModelResources:
        """Create model resources, wait until READY, and return a handle that stops them and
        their sessions when its ``async with`` block exits, exceptions included."""
        info = await self.create(base_model, timeout=timeout, **options)
        return AsyncModelResources(self._client, info.id, info)

    async def list(
        self,
        *,
        status: Sequence[str] | None = None,
        created_by: str | None = None,
        limit: int | None = None,
        after: str | None = None,
    ) -> models.ModelResourcesListResponse:
        """One page of model resources (newest first); ``after=page.meta.next_cursor`` for more."""
        statuses = [enum_member("status", models.ModelResourcesStatus, v) for v in status or ()]
        return await self._client._page(
            rl.list_model_resources.ENDPOINT,
            after=after,
            limit=limit,
            status=statuses or None,
            created_by=created_by,
        )

    async def stop(self, model_resources_id: str, *, force: bool = False) -> ModelResourcesInfo:
        """Stop them (billing ends); while sessions run, only with ``force`` (which stops them)."""
        endpoint = rl.stop_model_resources.ENDPOINT
        return await self._client._call(endpoint, None, model_resources_id, force=force)

    async def extend_expiry(self, model_resources_id: str, seconds: int) -> ModelResourcesInfo:
        """Keep READY resources up at least ``seconds`` from now without any operation."""
        endpoint = rl.extend_model_resources_expiry.ENDPOINT
        return await self._client._call(endpoint, {"seconds": seconds}, model_resources_id)

    async def estimate_cost(
        self, base_model: str, **options: Unpack[_fields.ModelResourcesCreateKeywords]
    ) -> models.ModelResourcesCostEstimate:
        """The hourly price of resources created with the same arguments (nothing is created)."""
        body = {"base_model": base_model, **options}
        return await self._client._call(rl.estimate_model_resources_cost.ENDPOINT, body)


class AsyncRolloutsAPI(AsyncResourceAPI):
    """``client.rollouts``: what rollouts would take and cost, before any resource exists."""

    async def estimate(
        self,
        base_model: str,
        *,
        episodes: int,
        concurrency: int,
        prompt_tokens: int,
        turns: int,
        generated_tokens_per_turn: int,
        added_tokens_per_turn: int,
        **options: Unpack[_fields.RolloutEstimateRequestKeywords],
    ) -> models.RolloutEstimate:
        """The rollout time, GPU-hours and price of ``episodes`` episodes of ``turns`` turns,
        ``concurrency`` at a time (``options``: ``RolloutEstimateRequest``'s); creates nothing."""
        body = {
            "base_model": base_model,
            "episodes": episodes,
            "concurrency": concurrency,
            "prompt_tokens": prompt_tokens,
            "turns": turns,
            "generated_tokens_per_turn": generated_tokens_per_turn,
            "added_tokens_per_turn": added_tokens_per_turn,
            **options,
        }
        return await self._client._call(rl.estimate_rollouts.ENDPOINT, body)


class AsyncModelResources:
    """Model resources that bill until stopped (``info``: their last known state); ``async with``
    stops them and their sessions."""

    def __init__(
        self, client: AsyncClientCore, model_resources_id: str, info: ModelResourcesInfo
    ) -> None:
        self._client = client
        self.id = model_resources_id
        self.info = info

    async def refresh(self) -> ModelResourcesInfo:
        """Fetch their state again (``info``)."""
        self.info = await AsyncModelResourcesAPI(self._client).get(self.id)
        return self.info

    async def stop(self, *, force: bool = True) -> ModelResourcesInfo:
        """Stop them; with ``force`` (the default here) their sessions too."""
        self.info = await AsyncModelResourcesAPI(self._client).stop(self.id, force=force)
        return self.info

    async def extend_expiry(self, seconds: int) -> ModelResourcesInfo:
        """Keep them up at least ``seconds`` from now without any operation."""
        self.info = await AsyncModelResourcesAPI(self._client).extend_expiry(self.id, seconds)
        return self.info

    def keep_alive(self, *, every: float = 600.0, seconds: int = 1800) -> AsyncKeepAlive:
        """A block during which their expiry is moved ``seconds`` ahead now and every ``every``."""
        return AsyncKeepAlive(lambda: self.extend_expiry(seconds), every)

    async def create_session(self, **options: Any) -> AsyncSession:
        """A session on these resources (``options``: those of ``client.sessions.create``)."""
        return await AsyncSessionsAPI(self._client).create(self.id, **options)

    async def __aenter__(self) -> AsyncModelResources:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop(force=True)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id!r}, stopped with its sessions on exit of with)"


class AsyncCheckpointsAPI(AsyncResourceAPI):
    """``client.checkpoints``: list, get and download checkpoints."""

    async def list(
        self,
        *,
        session_id: str | None = None,
        base_model: str | None = None,
        type: str | None = None,
        limit: int | None = None,
        after: str | None = None,
    ) -> models.CheckpointsListResponse:
        """One page (newest first); ``type``: ``CHECKPOINT_TYPE_TRAINING`` or ``_INFERENCE``."""
        checkpoint_type = None if type is None else enum_member("type", models.CheckpointType, type)
        return await self._client._page(
            rl.list_checkpoints.ENDPOINT,
            after=after,
            limit=limit,
            session_id=session_id,
            base_model=base_model,
            type_=checkpoint_type,
        )

    async def get(self, checkpoint_id: str) -> models.Checkpoint:
        """One checkpoint by id."""
        return await self._client._call(rl.get_checkpoint.ENDPOINT, None, checkpoint_id)

    async def download(
        self,
        checkpoint_id: str,
        to: str | Path,
        *,
        variant: str = "CHECKPOINT_VARIANT_UNSPECIFIED",
        progress: bool | None = None,
    ) -> tuple[Path, ...]:
        """Stream an inference checkpoint's files into the folder ``to``; their paths. ``variant``:
        ``..._MERGED``, ``..._ADAPTER`` or ``..._UNSPECIFIED``. A progress bar on a terminal."""
        folder = Path(to)
        folder.mkdir(parents=True, exist_ok=True)
        listing = await self._client._call(
            rl.download_checkpoint.ENDPOINT,
            None,
            checkpoint_id,
            variant=enum_member("variant", models.CheckpointVariant, variant),
        )
        paths = []
        for item in listing.data:
            path = _payloads.checkpoint_file_path(folder, item.filename)
            bar = None if progress is False else _payloads.terminal_progress(item.filename)
            await self._client._http.download(_payloads.download_request(item.url), path, bar)
            paths.append(path)
        return tuple(paths)
