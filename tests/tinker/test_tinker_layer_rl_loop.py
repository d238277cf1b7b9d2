"""examples/tinker_style.py, the Tinker-cookbook-shaped RL loop, through the Tinker layer
against the emulator: sample, group-centred advantages, `importance_sampling` or `ppo`,
`optim_step`, publish. The reward must rise; the script must run as a script (offline with
`--embedded`, or against a server named by TOGETHER_BASE_URL), save its states, leave no
resource READY, and hold no Together-specific line but its import."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from _tinker_helpers import READY, TrainingClients, model_resources_by_status
from emulator_harness import LiveEmulator

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tinker_style.py"
BATCHES = 30


@pytest.fixture(scope="module")
def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tinker_style", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["tinker_style"] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("loss_fn", ["importance_sampling", "ppo"])
def test_the_reward_rises(
    example: ModuleType, training_clients: TrainingClients, loss_fn: str
) -> None:
    config = dataclasses.replace(
        example.Config(),
        batches=BATCHES,
        batch_size=1,
        group_size=32,
        completion_length=2,
        loss_fn=loss_fn,
        save_every=BATCHES // 2,
    )
    client = training_clients.lora(rank=config.lora_rank, seed=config.seed)

    reports = example.train(client, config, [example.ToyTask.make(0)])

    rewards = [report.mean_reward for report in reports]
    assert sum(rewards[:3]) / 3 < 0.2
    assert sum(rewards[-3:]) / 3 >= 0.6
    assert [r.state_path is not None for r in reports].count(True) == 2


def test_group_datums_follow_tinkers_rl_layout(example: ModuleType, tinker: ModuleType) -> None:
    prompt = tinker.ModelInput.from_ints([1, 2, 3])
    response = tinker.SampleResponse(
        sequences=[
            tinker.SampledSequence("length", np.array([7, 8]), np.array([-1.0, -2.0])),
            tinker.SampledSequence("length", np.array([9, 9]), np.array([-3.0, -4.0])),
        ]
    )
    first, second = example.group_datums(prompt, response, [1.0, 0.0])
    assert first.model_input.to_ints() == [1, 2, 3, 7]
    assert first.loss_fn_inputs["target_tokens"].tolist() == [2, 3, 7, 8]
    assert first.loss_fn_inputs["logprobs"].tolist() == [0.0, 0.0, -1.0, -2.0]
    assert first.loss_fn_inputs["advantages"].tolist() == [0.0, 0.0, 0.5, 0.5]
    assert second.loss_fn_inputs["advantages"].tolist() == [0.0, 0.0, -0.5, -0.5]


SHORT_RUN = ["--batches", "4", "--batch-size", "1", "--group-size", "8", "--save-every", "2"]


def run_example(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLE), *SHORT_RUN, *args],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_script_runs_against_a_server_and_leaves_nothing_ready(
    live_emulator: LiveEmulator,
) -> None:
    env = {"TOGETHER_BASE_URL": live_emulator.base_url, "TOGETHER_API_KEY": live_emulator.api_key}
    done = run_example(env=env)
    assert done.returncode == 0, done.stderr
    assert re.findall(r"saved state (ckpt-\S+)", done.stdout) and "4 batches in" in done.stdout
    assert "still allocated" not in done.stderr
    resources = model_resources_by_status(live_emulator)
    assert len(resources) == 1 and READY not in resources.values()


def test_the_script_resumes_from_a_state_it_saved(live_emulator: LiveEmulator) -> None:
    env = {"TOGETHER_BASE_URL": live_emulator.base_url, "TOGETHER_API_KEY": live_emulator.api_key}
    first = run_example(env=env)
    state = re.findall(r"saved state (ckpt-\S+)", first.stdout)[0]
    resumed = run_example("--resume-from", state, "--start-batch", "2", env=env)
    assert resumed.returncode == 0, resumed.stderr
    assert re.search(r"^batch\s+3 ", resumed.stdout, re.MULTILINE)
    assert READY not in model_resources_by_status(live_emulator).values()


def test_the_script_runs_offline_with_embedded() -> None:
    done = run_example("--embedded", env={"TOGETHER_BASE_URL": "", "TOGETHER_API_KEY": ""})
    assert done.returncode == 0, done.stderr
    assert "4 batches in" in done.stdout
    assert "still allocated" not in done.stderr


def test_the_loop_holds_no_together_specific_line_but_its_import() -> None:
    loop, _, _ = EXAMPLE.read_text().partition("# " + "-" * 77 + " offline")
    code = loop.split('"""', 2)[2]  # after the module docstring
    together_lines = [line for line in code.splitlines() if "together" in line.split("#")[0]]
    assert together_lines == [
        "import together.post_training.tinker as tinker  # with Tinker itself: `import tinker`"
    ]
