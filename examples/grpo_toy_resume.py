"""Resume equals uninterrupted: examples/grpo_toy.py run twice against emulator processes with a
state dir, as a user would run it.

1. 2k steps in one go, on a fresh emulator.
2. k steps with ``--checkpoint-every k`` on another fresh emulator; ``kill -9`` of that emulator;
   restart on the same state dir; ``--resume-from`` the checkpoint to 2k steps.

Prints whether the two trajectories (reward and loss of every step) are identical, and with
``--plot PATH`` draws both reward curves in one PNG (needs matplotlib: ``pip install
'together-rl-toolkit[plots]'``)::

    python examples/grpo_toy_resume.py --steps 40 --plot docs/grpo_toy_resume.png
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

EXAMPLE = Path(__file__).resolve().parent / "grpo_toy.py"
KEY = "toy-key"
SMALL = ["--group-size", "16", "--target-length", "2", "--learning-rate", "0.1", "--seed", "0"]
Trajectory = list[tuple[int, float, float]]  # (step, mean reward, loss)


class EmulatorProcess:
    """``python -m together_rl_emulator`` on a state dir, on a free loopback port."""

    def __init__(self, state_dir: Path) -> None:
        env = {k: v for k, v in os.environ.items() if k != "TOGETHER_RL_EMULATOR_API_KEYS"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "together_rl_emulator", "--port", "0", "--seed", "0",
             "--state-dir", str(state_dir), "--api-key", KEY],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        )  # fmt: skip
        assert self.proc.stdout is not None
        deadline, lines = time.monotonic() + 30, []
        while True:
            line = self.proc.stdout.readline()
            lines.append(line)
            if not line and self.proc.poll() is not None:
                raise RuntimeError("the emulator exited:\n" + "".join(lines))
            found = re.search(r"listening on (http://\S+)", line)
            if found:
                self.base_url = found.group(1)
                return
            if time.monotonic() > deadline:
                raise RuntimeError("the emulator did not start:\n" + "".join(lines))

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


def run_toy(base_url: str, history: Path, *args: str) -> str:
    """examples/grpo_toy.py against ``base_url``; returns its stdout."""
    result = subprocess.run(
        [sys.executable, str(EXAMPLE), "--base-url", base_url, "--api-key", KEY, *SMALL,
         "--plot", str(history.with_suffix(".svg")), "--history", str(history), *args],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    if result.returncode != 0:
        raise RuntimeError(result.stdout + result.stderr)
    return result.stdout


def trajectory(history: Path) -> Trajectory:
    steps: list[dict[str, Any]] = json.loads(history.read_text())
    return [(s["step"], s["mean_reward"], s["loss"]) for s in steps]


def both_runs(k: int, work: Path) -> tuple[Trajectory, Trajectory]:
    """(uninterrupted 2k steps, k steps + checkpoint + kill -9 + restart + resume to 2k)."""
    started: list[EmulatorProcess] = []
    try:
        whole = EmulatorProcess(work / "whole")
        started.append(whole)
        run_toy(whole.base_url, work / "whole.json", "--steps", str(2 * k))

        first = EmulatorProcess(work / "split")
        started.append(first)
        out = run_toy(
            first.base_url, work / "first.json", "--steps", str(k), "--checkpoint-every", str(k)
        )
        found = re.search(rf"checkpoint (\S+) at step {k}\n", out)
        if found is None:
            raise RuntimeError(f"no checkpoint at step {k} in:\n{out}")
        first.kill9()
        restarted = EmulatorProcess(work / "split")
        started.append(restarted)
        out = run_toy(
            restarted.base_url, work / "second.json", "--steps", str(2 * k),
            "--resume-from", found.group(1),
        )  # fmt: skip
        if f"resumed from {found.group(1)} at step {k}" not in out:
            raise RuntimeError(f"the second half did not resume at step {k}:\n{out}")
    finally:
        for emulator in started:
            emulator.stop()
    resumed = trajectory(work / "first.json") + trajectory(work / "second.json")
    return trajectory(work / "whole.json"), resumed


def plot(uninterrupted: Trajectory, resumed: Trajectory, k: int, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=120)
    ax.plot([s for s, _, _ in uninterrupted], [r for _, r, _ in uninterrupted],
            lw=3, color="#9ecae1", label="uninterrupted")  # fmt: skip
    ax.plot([s for s, _, _ in resumed], [r for _, r, _ in resumed], lw=1.2, color="#08519c",
            ls="--", label="checkpoint, kill -9, restart, resume")  # fmt: skip
    ax.axvline(k, color="#d94801", lw=1, ls=":", label=f"checkpoint at step {k}")
    ax.set_xlabel("step")
    ax.set_ylabel("mean reward")
    ax.set_title("examples/grpo_toy.py: resumed run vs uninterrupted run")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=40, help="2k: the checkpoint is at k")
    parser.add_argument("--plot", type=Path, help="write both reward curves to this PNG")
    args = parser.parse_args(argv)
    k = args.steps // 2
    with tempfile.TemporaryDirectory() as work:
        uninterrupted, resumed = both_runs(k, Path(work))
    same = uninterrupted == resumed
    print(f"{2 * k} steps, checkpoint at step {k}: trajectories identical: {same}")
    if args.plot is not None:
        plot(uninterrupted, resumed, k, args.plot)
        print(f"reward curves written to {args.plot}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
