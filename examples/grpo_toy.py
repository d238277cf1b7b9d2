"""A complete GRPO loop on a toy task with a verifiable reward, through the together_rl wrapper.

Task: after a fixed prompt, produce a fixed target sequence of tokens; the reward of a
completion is the fraction of positions where it matches the target. Each step:

    sample G completions (policy as of the last weights-sync)
      -> reward each -> group-relative advantages (reward - mean) / std
      -> forward_backward with losses.GRPO (Sample.from_completion with the sampled tokens and
         their sampler logprobs) -> optim_step (AdamW) -> sync_weights

The three training operations are submitted back to back (the session runs them in order)
and their futures are read afterwards. Prints the mean reward of every step, draws a progress
bar on stderr and writes the reward curve as an SVG.

    python examples/grpo_toy.py --embedded                      # starts its own emulator
    python examples/grpo_toy.py --base-url http://127.0.0.1:8765 --api-key KEY
    python examples/grpo_toy.py --model-resources-id mr-... --learning-rate 1e-5   # real API

Checkpoints: ``--checkpoint-every N`` saves a training checkpoint (weights, Adam moments, step)
after every N-th step and prints its id; ``--resume-from ID`` starts the session from one and
continues at the step it holds, to ``--steps``. Sampling seeds follow the step number, so a
resumed run repeats the uninterrupted one exactly (tests/wrapper/test_grpo_toy_resume.py checks
it across an emulator kill -9). ``--history PATH`` writes the per-step rewards, losses and the
checkpoints as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from together_rl import Client, Sample, Session, losses


@dataclass(frozen=True)
class ToyConfig:
    steps: int = 200
    group_size: int = 64
    learning_rate: float = 0.05
    temperature: float = 1.5
    target_length: int = 4
    seed: int = 0
    grad_clip_norm: float = 0.0  # 0 disables clipping (Adam already normalises step sizes)


@dataclass(frozen=True)
class ToyTask:
    prompt: list[int]
    target: list[int]

    @classmethod
    def make(cls, seed: int, target_length: int, token_range: int = 1000) -> ToyTask:
        """A prompt of 4 tokens and a target of distinct tokens, all below ``token_range`` (so
        they exist in every supported vocabulary)."""
        rng = np.random.default_rng(seed)
        tokens = rng.choice(token_range, size=4 + target_length, replace=False)
        return cls(prompt=[int(t) for t in tokens[:4]], target=[int(t) for t in tokens[4:]])

    def reward(self, completion: Sequence[int]) -> float:
        """Fraction of target positions the completion matches (missing tokens do not)."""
        hits = sum(1 for got, want in zip(completion, self.target, strict=False) if got == want)
        return hits / len(self.target)


def group_advantages(rewards: np.ndarray) -> np.ndarray:
    """GRPO's group-relative advantages; all zero when every completion scored the same."""
    std = float(rewards.std())
    if std == 0.0:
        return np.zeros(rewards.shape)
    centred: np.ndarray = (rewards - rewards.mean()) / (std + 1e-6)
    return centred


@dataclass(frozen=True)
class StepReport:
    step: int
    mean_reward: float
    loss: float
    weights_version: int
    checkpoint_id: str | None = None  # saved after this step (``checkpoint_every``)


def run_grpo(
    session: Session,
    config: ToyConfig,
    task: ToyTask | None = None,
    on_step: Callable[[StepReport], None] | None = None,
    *,
    start_step: int = 0,
    checkpoint_every: int = 0,
) -> list[float]:
    """Run steps ``start_step + 1`` .. ``config.steps`` (a resumed session starts at the step
    of its checkpoint); returns the mean reward of each. With ``checkpoint_every`` N > 0, a
    training checkpoint is saved after every N-th step (``StepReport.checkpoint_id``)."""
    task = task or ToyTask.make(config.seed, config.target_length)
    loss = losses.GRPO(clip_low_threshold=0.8, clip_high_threshold=1.2)
    curve: list[float] = []
    for step in range(start_step, config.steps):
        sampled = session.sample(
            task.prompt,
            num_samples=config.group_size,
            max_tokens=config.target_length,
            temperature=config.temperature,
            seed=config.seed * 1_000_003 + step,
        ).result()
        sequences = sampled[0].sequences
        rewards = np.array([task.reward(s.tokens.tolist()) for s in sequences])
        advantages = group_advantages(rewards)
        samples = [
            Sample.from_completion(task.prompt, s.tokens, logprobs=s.logprobs, advantages=a)
            for s, a in zip(sequences, advantages, strict=True)
        ]
        # Submitted back to back; the session runs them in order, the futures resolve in order.
        trained = session.forward_backward(samples, loss)
        stepped = session.optim_step(
            learning_rate=config.learning_rate, grad_clip_norm=config.grad_clip_norm
        )
        synced = session.sync_weights()
        fb_loss = trained.result().loss
        stepped.result()
        version = synced.result().weights_version
        checkpoint_id = None
        if checkpoint_every > 0 and (step + 1) % checkpoint_every == 0:
            checkpoint_id = session.save_checkpoint().result().id
        report = StepReport(
            step=step + 1,
            mean_reward=float(rewards.mean()),
            loss=fb_loss,
            weights_version=version,
            checkpoint_id=checkpoint_id,
        )
        curve.append(report.mean_reward)
        if on_step is not None:
            on_step(report)
    return curve


# ----------------------------------------------------------------------------- output


class ProgressBar:
    """A one-line progress bar on stderr (no dependency)."""

    def __init__(self, total: int, width: int = 30) -> None:
        self.total, self.width, self.start = total, width, time.monotonic()

    def draw(self, done: int, reward: float) -> None:
        filled = int(self.width * done / max(1, self.total))
        elapsed = time.monotonic() - self.start
        bar = "#" * filled + "." * (self.width - filled)
        sys.stderr.write(f"\r[{bar}] {done}/{self.total} mean reward {reward:.3f} {elapsed:6.1f} s")
        sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")
        sys.stderr.flush()


def reward_curve_svg(curve: Sequence[float], title: str) -> str:
    """An SVG line chart of the mean reward per step (y from 0 to 1)."""
    width, height, left, right, top, bottom = 640, 360, 50, 20, 30, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    n = max(1, len(curve) - 1)

    def xy(i: int, value: float) -> str:
        return f"{left + plot_w * i / n:.1f},{top + plot_h * (1 - value):.1f}"

    grid = "".join(
        f'<line x1="{left}" y1="{top + plot_h * (1 - y):.1f}" x2="{left + plot_w}" '
        f'y2="{top + plot_h * (1 - y):.1f}" stroke="#ddd"/>'
        f'<text x="{left - 8}" y="{top + plot_h * (1 - y) + 4:.1f}" text-anchor="end" '
        f'font-size="11">{y:.2f}</text>'
        for y in (0.0, 0.25, 0.5, 0.75, 1.0)
    )
    points = " ".join(xy(i, v) for i, v in enumerate(curve))
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif">'
        f'<rect width="{width}" height="{height}" fill="white"/>{grid}'
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
        f'stroke="black"/><line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" '
        f'stroke="black"/>'
        f'<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="{points}"/>'
        f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="14">{title}</text>'
        f'<text x="{left + plot_w / 2}" y="{height - 8}" text-anchor="middle" '
        f'font-size="12">step (1 to {len(curve)})</text>'
        f'<text x="14" y="{top + plot_h / 2}" text-anchor="middle" font-size="12" '
        f'transform="rotate(-90 14 {top + plot_h / 2})">mean reward</text></svg>\n'
    )


# ----------------------------------------------------------------------------- emulator


@contextmanager
def embedded_emulator(api_key: str, seed: int) -> Iterator[str]:
    """Serve the emulator on a free loopback port in this process; yields its base URL."""
    from together_rl_emulator import serve_emulator

    with serve_emulator(api_keys=[api_key], seed=seed) as server:
        yield server.base_url


# ----------------------------------------------------------------------------- main


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    defaults = ToyConfig()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", default=os.environ.get("TOGETHER_BASE_URL"))
    parser.add_argument("--api-key", default=os.environ.get("TOGETHER_API_KEY"))
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--model-resources-id", help="existing model resources (real API)")
    where.add_argument("--base-model", default="emulator/tiny-1k", help="creates resources")
    parser.add_argument("--embedded", action="store_true", help="start an emulator in-process")
    parser.add_argument("--steps", type=int, default=defaults.steps)
    parser.add_argument("--group-size", type=int, default=defaults.group_size)
    parser.add_argument("--learning-rate", type=float, default=defaults.learning_rate)
    parser.add_argument("--temperature", type=float, default=defaults.temperature)
    parser.add_argument("--target-length", type=int, default=defaults.target_length)
    parser.add_argument("--grad-clip-norm", type=float, default=defaults.grad_clip_norm)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--plot", type=Path, default=Path("grpo_toy_reward.svg"))
    parser.add_argument("--checkpoint-every", type=int, default=0, metavar="N",
                        help="save a training checkpoint after every N-th step")  # fmt: skip
    parser.add_argument("--resume-from", metavar="ID", help="start from a training checkpoint")
    parser.add_argument("--history", type=Path, help="write rewards, losses, checkpoints (JSON)")
    return parser.parse_args(argv)


def train(client: Client, args: argparse.Namespace) -> list[float]:
    config = ToyConfig(
        steps=args.steps,
        group_size=args.group_size,
        learning_rate=args.learning_rate,
        temperature=args.temperature,
        target_length=args.target_length,
        seed=args.seed,
        grad_clip_norm=args.grad_clip_norm,
    )
    resources_id = args.model_resources_id
    if resources_id is None:
        resources_id = client.model_resources.create(args.base_model).id
    session = client.sessions.create(
        model_resources_id=resources_id,
        display_name="grpo-toy",
        resume_from_checkpoint_id=args.resume_from,
    )
    start_step = int(session.info.step) if session.info is not None else 0
    task = ToyTask.make(config.seed, config.target_length)
    print(f"session {session.id}: prompt {task.prompt}, target {task.target}", flush=True)
    if args.resume_from:
        print(f"resumed from {args.resume_from} at step {start_step}", flush=True)
    bar = ProgressBar(config.steps)
    reports: list[StepReport] = []

    def report(step: StepReport) -> None:
        reports.append(step)
        print(
            f"step {step.step:4d}  mean reward {step.mean_reward:.3f}  loss {step.loss:+.2e}  "
            f"weights v{step.weights_version}",
            flush=True,
        )
        if step.checkpoint_id is not None:
            print(f"checkpoint {step.checkpoint_id} at step {step.step}", flush=True)
        bar.draw(step.step, step.mean_reward)

    try:
        with session:  # stopped on exit, exceptions included
            return run_grpo(
                session, config, task, on_step=report, start_step=start_step,
                checkpoint_every=args.checkpoint_every,
            )  # fmt: skip
    finally:
        bar.close()
        if args.history is not None:
            args.history.write_text(json.dumps([r.__dict__ for r in reports], indent=1))


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.monotonic()
    with server_url(args) as base_url:
        if not args.api_key:
            print("no API key: pass --api-key or set TOGETHER_API_KEY", file=sys.stderr)
            return 2
        with Client(api_key=args.api_key, base_url=base_url) as client:
            curve = train(client, args)
    wall = time.monotonic() - started
    if not curve:
        print("nothing to run: the session is already at --steps")
        return 0
    first = next((i + 1 for i, r in enumerate(curve) if r >= 0.9), None)
    tail = curve[-10:]
    print(
        f"initial mean reward {curve[0]:.3f}, final (mean of the last {len(tail)} steps) "
        f"{sum(tail) / len(tail):.3f}, first step >= 0.9: {first}, "
        f"{len(curve)} steps in {wall:.1f} s"
    )
    args.plot.write_text(reward_curve_svg(curve, "GRPO toy: mean reward per step"))
    print(f"reward curve written to {args.plot}")
    return 0


@contextmanager
def server_url(args: argparse.Namespace) -> Iterator[str | None]:
    """The embedded emulator's URL with ``--embedded`` (and a key for it), else ``--base-url``."""
    if not args.embedded:
        yield args.base_url
        return
    args.api_key = args.api_key or "grpo-toy-key"
    with embedded_emulator(args.api_key, args.seed) as url:
        yield url


if __name__ == "__main__":
    raise SystemExit(main())
