"""Everything one app instance owns (store, worker, service, keys, stats, faults), reachable as
`app.state.emulator` and, from a request, through `state_of(request)`."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request

from ..base import Stats
from ..cost import Timing
from ..service import EmulatorService, OperationWorker
from ..state import Store
from ._auth import ApiKeys, owner_secret
from ._faults import FaultInjector

__all__ = ["EmulatorState", "state_of"]


class EmulatorState:
    """Everything one app instance owns, reachable as `app.state.emulator`."""

    def __init__(
        self,
        api_keys: list[str],
        seed: int,
        timing: Timing,
        state_dir: str | Path | None,
        max_body_mb: float,
    ) -> None:
        self.keys = ApiKeys(api_keys, owner_secret(state_dir))
        self.store = Store(state_dir)
        self.max_body_bytes = int(max_body_mb * 1024 * 1024)
        self.timing = timing
        self.stats = Stats()
        self.faults = FaultInjector()
        self.worker = OperationWorker(self.store, timing)
        self.service = EmulatorService(self.store, self.worker, self.stats, seed)
        self.store.clean_stale_files()
        self.requeued = self.service.requeue_unfinished()

    def owner_of(self, authorization: str | None) -> str | None:
        """The owner id of a valid `Authorization: Bearer <key>` header, else None."""
        return self.keys.owner_of(authorization)

    def authenticate(self, request: Request) -> str:
        """The caller's owner id; 401 for a missing or unknown key."""
        return self.keys.authenticate(request)

    def expire_idle(self) -> None:
        """Stop the model resources idle past `expires_at` (their sessions EXPIRED)."""
        if self.service.model_resources.expire_idle():
            self.worker.wake()

    def close(self) -> None:
        self.worker.stop()
        self.store.close()


def state_of(request: Request) -> EmulatorState:
    state: EmulatorState = request.app.state.emulator
    return state
