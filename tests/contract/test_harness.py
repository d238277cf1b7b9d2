"""`together_rl_contract_tests.harness`, the suite's pieces for checks built beside it: part 1
alone (schemathesis with the suite's configuration) judges a server, and a server that accepts
what it must refuse fails it."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from starlette.responses import JSONResponse
from together_rl_contract_tests import Target
from together_rl_contract_tests.harness import FAILED, PASSED, schemathesis_checks

Serve = Callable[..., AbstractContextManager[Target]]
ONE_ROUTE = "/v1/rl/model-resources/estimate-cost"


def _accepting_everything(app: Any) -> Any:
    """Answers every cost estimate 200 with an empty object, whatever was asked."""

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and scope["path"] == ONE_ROUTE:
            await JSONResponse({}, status_code=200)(scope, receive, send)
        else:
            await app(scope, receive, send)

    return wrapped


def _run(serve_emulator: Serve, wrap: Any = None) -> list[Any]:
    with serve_emulator(wrap) as target:
        return schemathesis_checks(target, max_examples=1, phases=("fuzzing",), negative_only=True)


def test_the_emulator_refuses_every_invalid_request(serve_emulator: Serve) -> None:
    results = _run(serve_emulator)
    assert results and all(r.status != FAILED for r in results)
    assert any(r.status == PASSED for r in results)


def test_a_server_accepting_invalid_bodies_fails(serve_emulator: Serve) -> None:
    results = _run(serve_emulator, _accepting_everything)
    assert any(r.status == FAILED and "estimate-cost" in r.operation for r in results)
