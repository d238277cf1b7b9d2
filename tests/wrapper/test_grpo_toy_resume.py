"""examples/grpo_toy.py, run as a user would, against emulator processes with a state dir: 2k
steps in one go, and k steps with a checkpoint, an emulator kill -9 and restart, then a resume
from the checkpoint to 2k steps. Both trajectories (rewards and losses, step by step) are the
same."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "grpo_toy.py"
KEY = "toy-key"
K = 3
SMALL = ["--group-size", "16", "--target-length", "2", "--learning-rate", "0.1", "--seed", "0"]


class Emulator:
    def __init__(self, state_dir: Path) -> None:
        env = {k: v for k, v in os.environ.items() if k != "TOGETHER_RL_EMULATOR_API_KEYS"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "together_rl_emulator", "--port", "0", "--seed", "0",
             "--state-dir", str(state_dir), "--api-key", KEY],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        )  # fmt: skip
        assert self.proc.stdout is not None
        deadline = time.monotonic() + 30
        lines = []
        while True:
            line = self.proc.stdout.readline()
            lines.append(line)
            assert line or self.proc.poll() is None, "".join(lines)
            found = re.search(r"listening on (http://\S+)", line)
            if found:
                self.base_url = found.group(1)
                return
            assert time.monotonic() < deadline, "".join(lines)

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


@pytest.fixture
def emulators() -> Iterator[list[Emulator]]:
    started: list[Emulator] = []
    yield started
    for emulator in started:
        emulator.stop()


def _run_example(base_url: str, history: Path, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, str(EXAMPLE), "--base-url", base_url, "--api-key", KEY, *SMALL,
         "--plot", str(history.with_suffix(".svg")), "--history", str(history), *args],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def _trajectory(history: Path) -> list[tuple[int, float, float]]:
    steps: list[dict[str, Any]] = json.loads(history.read_text())
    return [(s["step"], s["mean_reward"], s["loss"]) for s in steps]


def test_resume_after_kill_9_equals_the_uninterrupted_run(
    tmp_path: Path, emulators: list[Emulator]
) -> None:
    whole = Emulator(tmp_path / "whole")
    emulators.append(whole)
    _run_example(whole.base_url, tmp_path / "whole.json", "--steps", str(2 * K))

    first = Emulator(tmp_path / "split")
    emulators.append(first)
    out = _run_example(
        first.base_url, tmp_path / "first.json", "--steps", str(K), "--checkpoint-every", str(K)
    )
    found = re.search(rf"checkpoint (\S+) at step {K}", out)
    assert found, out
    first.kill9()
    restarted = Emulator(tmp_path / "split")
    emulators.append(restarted)
    out = _run_example(
        restarted.base_url, tmp_path / "second.json", "--steps", str(2 * K),
        "--resume-from", found.group(1),
    )  # fmt: skip
    assert f"resumed from {found.group(1)} at step {K}" in out

    uninterrupted = _trajectory(tmp_path / "whole.json")
    interrupted = _trajectory(tmp_path / "first.json") + _trajectory(tmp_path / "second.json")
    assert [s for s, _, _ in interrupted] == list(range(1, 2 * K + 1))
    assert interrupted == uninterrupted
