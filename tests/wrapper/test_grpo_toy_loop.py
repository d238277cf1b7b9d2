"""A short run of examples/grpo_toy.py's loop against the in-process emulator, fixed seeds: the
mean reward must rise from (near) zero to at least half the target, and the run must be
reproducible. Plus the example's pure pieces (reward, advantages, SVG)."""

from __future__ import annotations

import importlib.util
import sys
import xml.dom.minidom
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from emulator_harness import EMULATOR_KEY as KEY
from starlette.testclient import TestClient
from together_rl import Client
from together_rl_emulator import create_app

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "grpo_toy.py"


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("grpo_toy", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["grpo_toy"] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def toy() -> ModuleType:
    return load_example()


@pytest.fixture
def client() -> Iterator[Client]:
    app = create_app(api_keys=[KEY], seed=0)
    with (
        TestClient(app) as test_client,
        Client(KEY, "http://emulator.test", transport=test_client._transport) as made,
    ):
        yield made
    app.emulator.close()


def short_run(toy: ModuleType, client: Client) -> list[float]:
    resources = client.model_resources.create("emulator/tiny-1k")
    session = client.sessions.create(model_resources_id=resources.id)
    config = toy.ToyConfig(steps=60, group_size=64, target_length=2, learning_rate=0.1, seed=0)
    reports: list[object] = []
    curve: list[float] = toy.run_grpo(session, config, on_step=reports.append)
    assert [r.step for r in reports] == list(range(1, 61))  # type: ignore[attr-defined]
    assert [r.weights_version for r in reports] == list(range(1, 61))  # type: ignore[attr-defined]
    return curve


def test_the_reward_rises(toy: ModuleType, client: Client) -> None:
    curve = short_run(toy, client)
    first, last = np.mean(curve[:10]), np.mean(curve[-10:])
    assert first < 0.05
    assert last >= 0.5
    assert last > first + 0.45


def test_a_fixed_seed_run_is_reproducible(toy: ModuleType) -> None:
    curves = []
    for _ in range(2):
        app = create_app(api_keys=[KEY], seed=0)
        with (
            TestClient(app) as test_client,
            Client(KEY, "http://emulator.test", transport=test_client._transport) as client,
        ):
            session = client.sessions.create(client.model_resources.create("emulator/tiny-1k").id)
            config = toy.ToyConfig(steps=15, group_size=16, target_length=2, learning_rate=0.1)
            curves.append(toy.run_grpo(session, config))
        app.emulator.close()
    assert curves[0] == curves[1]


def test_reward_advantages_and_plot(toy: ModuleType) -> None:
    task = toy.ToyTask(prompt=[1, 2], target=[5, 6, 7, 8])
    assert task.reward([5, 0, 7, 8]) == 0.75
    assert task.reward([5]) == 0.25
    assert task.reward([9, 9, 9, 9, 5]) == 0.0
    assert np.all(toy.group_advantages(np.array([0.5, 0.5])) == 0)
    advantages = toy.group_advantages(np.array([0.0, 1.0]))
    assert advantages[0] < 0 < advantages[1] and advantages.sum() == pytest.approx(0)
    made = toy.ToyTask.make(3, 4)
    assert len(made.prompt) == 4 and len(set(made.target)) == 4 and max(made.target) < 1000
    svg = toy.reward_curve_svg([0.0, 0.5, 1.0], "curve")
    document = xml.dom.minidom.parseString(svg)
    (polyline,) = document.getElementsByTagName("polyline")
    assert len(polyline.getAttribute("points").split()) == 3
