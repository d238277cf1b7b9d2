"""``client.checkpoints``: list, get and download checkpoints."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from together_rl_client import models
from together_rl_client.api import rl

from . import _downloads, _payloads
from ._schema import enum_member

if TYPE_CHECKING:
    from ._async import AsyncClient

__all__ = ["AsyncCheckpointsAPI"]


class AsyncCheckpointsAPI:
    """``client.checkpoints``: list, get and download checkpoints."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

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
        """Download an inference checkpoint's files into the directory ``to`` (created if
        needed), each streamed to disk; returns their paths. ``variant``: ``..._MERGED`` (the
        full model), ``..._ADAPTER`` (LoRA only) or ``..._UNSPECIFIED`` (the checkpoint's own
        form). A progress bar is drawn on stderr when it is a terminal (``progress`` forces it
        off with False)."""
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
            path = _downloads.checkpoint_file_path(folder, item.filename)
            bar = None if progress is False else _downloads.terminal_progress(item.filename)
            await self._client._http.download(_payloads.download_request(item.url), path, bar)
            paths.append(path)
        return tuple(paths)
