"""Helpers of the Tinker-layer tests: training clients closed at teardown, the emulator's
resources and sessions by status, and Tinker datums built from the spec's examples.

Every training client a test opens must be closed before its emulator stops: one left open
would be stopped by the layer at interpreter exit, against an emulator that is gone by then.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx
from emulator_harness import LiveEmulator

__all__ = [
    "BASE_MODEL",
    "READY",
    "TrainingClients",
    "model_resources_by_status",
    "sessions_by_status",
]

BASE_MODEL = "emulator/tiny-1k"
READY = "MODEL_RESOURCES_STATUS_READY"


@dataclass
class TrainingClients:
    """Opens training clients through one ServiceClient and remembers them for teardown."""

    service_client: Any
    opened: list[Any] = field(default_factory=list)

    def lora(self, rank: int = 8, seed: int = 0, **kwargs: Any) -> Any:
        return self._keep(
            self.service_client.create_lora_training_client(
                base_model=BASE_MODEL, rank=rank, seed=seed, **kwargs
            )
        )

    def from_state(self, path: str, *, with_optimizer: bool) -> Any:
        if with_optimizer:
            return self._keep(
                self.service_client.create_training_client_from_state_with_optimizer(path)
            )
        return self._keep(self.service_client.create_training_client_from_state(path))

    def _keep(self, client: Any) -> Any:
        self.opened.append(client)
        return client

    def close_all(self) -> None:
        for client in self.opened:
            client.close()  # a second close of the same client does nothing


def model_resources_by_status(live: LiveEmulator) -> dict[str, str]:
    """Every model resource of the emulator's key: id -> status."""
    response = httpx.get(
        f"{live.api_url}/rl/model-resources", params={"limit": 100}, headers=live.headers()
    )
    response.raise_for_status()
    return {item["id"]: item["status"] for item in response.json()["data"]}


def sessions_by_status(live: LiveEmulator) -> dict[str, str]:
    response = httpx.get(
        f"{live.api_url}/rl/training-sessions", params={"limit": 100}, headers=live.headers()
    )
    response.raise_for_status()
    return {item["id"]: item["status"] for item in response.json()["data"]}
