"""Fixtures of the wrapper tests (helpers live in wrapper_helpers.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from wrapper_helpers import Api, Emulator, make_api


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def api_factory() -> Iterator[Callable[..., Api]]:
    made: list[Api] = []

    def factory(mode: str, **kwargs: Any) -> Api:
        api = make_api(mode, **kwargs)
        made.append(api)
        return api

    yield factory
    for api in made:
        api.close()


@pytest.fixture(params=["inproc", "loopback"])
def where(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def emulator_factory(
    live_emulator_factory: Callable[..., Any],
) -> Iterator[Callable[..., Emulator]]:
    made: list[Emulator] = []

    def factory(where: str, **options: Any) -> Emulator:
        emulator = Emulator(where, live_emulator_factory, **options)
        made.append(emulator)
        return emulator

    yield factory
    for emulator in made:
        emulator.close()
