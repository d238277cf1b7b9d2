"""Fixtures of the wrapper tests (helpers live in wrapper_helpers.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from wrapper_helpers import Api, make_api


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
