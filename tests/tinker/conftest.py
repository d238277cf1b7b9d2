"""Fixtures for driving the official SDK's Tinker-compatible layer against the emulator.

    def test_x(training_clients):
        client = training_clients.lora()          # closed after the test, whatever happens

The layer opens its own HTTP clients from `base_url` and `api_key`, so it talks to the emulator
over loopback (`live_emulator`).
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from _tinker_helpers import TrainingClients
from ci_policy import import_required
from emulator_harness import LiveEmulator


@pytest.fixture(scope="session")
def tinker() -> ModuleType:
    """`together.post_training.tinker`, which the dev extra `together[tinker]` installs."""
    return import_required("together.post_training.tinker")


@pytest.fixture
def service_client(tinker: ModuleType, live_emulator: LiveEmulator) -> Any:
    return tinker.ServiceClient(base_url=live_emulator.base_url, api_key=live_emulator.api_key)


@pytest.fixture
def training_clients(service_client: Any) -> Iterator[TrainingClients]:
    clients = TrainingClients(service_client)
    yield clients
    clients.close_all()
