"""Fixtures of the scenario and loss-math tests; they run against any target.

Under ``python -m together_rl_contract_tests`` the target comes from the runner's
:class:`ResultCollector`. Under plain pytest it comes from ``--ct-base-url``/``--ct-api-key``/...
(or ``TOGETHER_BASE_URL`` and ``TOGETHER_API_KEY`` with ``--ct-external``); with none of them an
emulator subprocess is started for the session.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator
from typing import Any

import pytest

from together_rl_contract_tests._emulator_process import emulator_subprocess
from together_rl_contract_tests._http import TargetClient
from together_rl_contract_tests._plan import scenario_plan_entry
from together_rl_contract_tests._provision import PROBE_BODY, base_model
from together_rl_contract_tests._pytest_plugin import ResultCollector
from together_rl_contract_tests._target import Target


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("together_rl_contract_tests")
    group.addoption("--ct-base-url", default=None, help="server root (without /v1)")
    group.addoption("--ct-api-key", default=None, help="API key (default: TOGETHER_API_KEY)")
    group.addoption("--ct-second-api-key", default=None, help="a second key, for tenant isolation")
    group.addoption("--ct-session-id", default=None, help="session to send forward-only passes to")
    group.addoption("--ct-allow-mutations", action="store_true", help="allow creating/training")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "operation(label): the spec operation a test checks")
    config.addinivalue_line(
        "markers", "needs_mutations(reason): runs only on the emulator or with --allow-mutations"
    )
    config.addinivalue_line("markers", "emulator_only(reason): runs only against the emulator")

    config.addinivalue_line(
        "markers", "requests_fixture(name): the test calls request.getfixturevalue(name)"
    )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip, before any fixture runs, a test this target may not run (the policy a dry run
    lists: :func:`together_rl_contract_tests._plan.scenario_plan_entry`)."""
    collector = _collector(item.config)
    target = collector.target if collector is not None else _external_target(item.config)
    if target is None:  # the emulator started for this session runs everything
        return
    reason = scenario_plan_entry(item, target, "-", "scenario").skip_reason
    if reason is not None:
        pytest.skip(reason)


def _collector(config: pytest.Config) -> ResultCollector | None:
    for plugin in config.pluginmanager.get_plugins():
        if isinstance(plugin, ResultCollector):
            return plugin
    return None


@pytest.fixture(scope="session")
def target(request: pytest.FixtureRequest) -> Iterator[Target]:
    collector = _collector(request.config)
    if collector is not None:
        yield collector.target
        return

    external = _external_target(request.config)
    if external is not None:
        yield external
        return
    with emulator_subprocess() as emulator:
        yield emulator


def _external_target(config: pytest.Config) -> Target | None:
    """The target named with ``--ct-base-url``, or ``None`` (an emulator is started)."""

    def option(name: str) -> Any:
        return config.getoption(name, default=None)

    base_url = option("--ct-base-url")
    if not base_url:
        return None
    return Target(
        base_url=base_url,
        api_key=option("--ct-api-key") or os.environ.get("TOGETHER_API_KEY"),
        second_api_key=option("--ct-second-api-key"),
        session_id=option("--ct-session-id"),
        allow_mutations=bool(option("--ct-allow-mutations")),
        min_interval_s=0.5,
    )


@pytest.fixture(scope="session")
def findings(request: pytest.FixtureRequest) -> list[str]:
    """Where tests record what they found (printed in the report's Findings)."""
    collector = _collector(request.config)
    return collector.notes if collector is not None else []


@pytest.fixture(scope="session")
def client(target: Target) -> Iterator[TargetClient]:
    if target.skip_reason:
        pytest.skip(target.skip_reason)
    with TargetClient(target) as http:
        yield http


@pytest.fixture(scope="session")
def second_client(target: Target) -> Iterator[TargetClient]:
    if target.skip_reason:
        pytest.skip(target.skip_reason)
    if not target.second_api_key:
        pytest.skip("no second API key (--second-api-key): tenant isolation is not checked")
    with TargetClient(target, api_key=target.second_api_key) as http:
        yield http


def needs_mutations(target: Target) -> None:
    if not target.may_mutate:
        pytest.skip("creates resources or trains: needs the emulator or --allow-mutations")


@pytest.fixture(scope="session")
def model_resources(client: TargetClient, target: Target) -> dict[str, Any]:
    needs_mutations(target)
    return client.create_model_resources(base_model(client))


@pytest.fixture
def fresh_session(
    client: TargetClient, model_resources: dict[str, Any]
) -> Iterator[dict[str, Any]]:
    """A new RUNNING session (emulator or --allow-mutations only), stopped afterwards: a model
    resource runs only a few sessions at once (5 on LoRA)."""
    session = client.start_session(model_resources["id"])
    yield session
    client.post(f"/v1/rl/training-sessions/{session['id']}/stop")


@pytest.fixture
def fresh_session_id(fresh_session: dict[str, Any]) -> str:
    """The id of :func:`fresh_session`."""
    return str(fresh_session["id"])


@pytest.fixture(scope="session")
def session_id(client: TargetClient, target: Target) -> str:
    """The session forward-only passes go to: --session-id, or one created on the emulator."""
    if target.session_id:
        return target.session_id
    needs_mutations(target)
    resources = client.create_model_resources(base_model(client))
    return str(client.start_session(resources["id"])["id"])


@pytest.fixture
def probe_body() -> dict[str, Any]:
    """A valid forward-only cross-entropy body (a fresh copy per test)."""
    return copy.deepcopy(PROBE_BODY)


@pytest.fixture(scope="session")
def own_session_id(client: TargetClient, model_resources: dict[str, Any]) -> str:
    """A session the suite created itself (never --session-id): optim-steps and syncs may go
    there. Tests that need a known policy state use ``fresh_session`` instead."""
    return str(client.start_session(model_resources["id"])["id"])
