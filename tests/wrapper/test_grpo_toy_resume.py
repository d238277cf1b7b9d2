"""examples/grpo_toy.py, run as a user would, against emulator processes with a state dir
(examples/grpo_toy_resume.py): 2k steps in one go, and k steps with a checkpoint, an emulator
kill -9 and restart, then a resume from the checkpoint to 2k steps. Both trajectories (rewards
and losses, step by step) are the same."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "grpo_toy_resume.py"
K = 3


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("grpo_toy_resume", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["grpo_toy_resume"] = module
    spec.loader.exec_module(module)
    return module


def test_resume_after_kill_9_equals_the_uninterrupted_run(tmp_path: Path) -> None:
    uninterrupted, resumed = load_example().both_runs(K, tmp_path)
    assert [step for step, _, _ in resumed] == list(range(1, 2 * K + 1))
    assert resumed == uninterrupted
