"""A Tinker-cookbook-shaped RL loop, run through Together's Tinker-compatible layer.

The loop has the shape of tinker-cookbook's minimal ``rl_loop.py``: a LoRA training client
(or one resumed from a saved state), then for each batch: publish the weights and get a
sampling client, sample a group of completions per prompt (all futures first, results after),
reward them, centre the rewards within each group to get advantages, build ``Datum``s with
``target_tokens`` / ``logprobs`` / ``advantages``, then ``forward_backward`` with
``importance_sampling`` (or ``ppo``) and ``optim_step``, and ``save_state`` every few batches.

The task is a toy with a reward you can check: each prompt has a band of 64 token ids, and
the reward of a completion is the fraction of its tokens inside that band (about 6% at first).
Written against the ``tinker`` SDK, the script runs on Together by changing only its
import line (``import tinker`` -> the one below), as the layer promises. It uses nothing but
Tinker's API: it does not even close its training client, because Tinker's has no ``close``;
the layer stops the session and the model resources it created when the interpreter exits.

    python examples/tinker_style.py --embedded              # offline: an emulator in-process
    TOGETHER_BASE_URL=http://127.0.0.1:8765 TOGETHER_API_KEY=KEY python examples/tinker_style.py
    TOGETHER_API_KEY=... python examples/tinker_style.py --base-model <a supported model> \\
        --learning-rate 4e-5                                 # the real API (billable)
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import together.post_training.tinker as tinker  # with Tinker itself: `import tinker`


@dataclass(frozen=True)
class Config:
    base_url: str | None = None  # None: TOGETHER_BASE_URL, else the public API
    base_model: str = "emulator/tiny-1k"
    lora_rank: int = 32
    batches: int = 60
    batch_size: int = 2  # prompts per batch
    group_size: int = 32  # completions per prompt
    learning_rate: float = 0.1  # tuned to the emulator's small policy, not to a real model
    temperature: float = 1.5
    completion_length: int = 4
    loss_fn: str = "importance_sampling"  # or "ppo"
    save_every: int = 20
    seed: int = 0
    resume_from: str | None = None  # a path save_state returned
    start_batch: int = 0


@dataclass(frozen=True)
class ToyTask:
    """A prompt and the band of token ids its completions are rewarded for staying in."""

    prompt: list[int]
    band: range

    @classmethod
    def make(cls, seed: int, band_width: int = 64, token_range: int = 1000) -> ToyTask:
        """Four prompt tokens and a band, all below ``token_range`` (so they exist in every
        supported vocabulary)."""
        rng = random.Random(seed)
        low = rng.randrange(token_range - band_width)
        return cls(prompt=rng.sample(range(token_range), 4), band=range(low, low + band_width))

    def reward(self, completion: Sequence[int]) -> float:
        """The fraction of completion tokens inside the band."""
        return sum(1 for token in completion if token in self.band) / len(completion)


@dataclass(frozen=True)
class BatchReport:
    batch: int
    mean_reward: float
    trained_on: int  # datums: completions of the groups whose rewards were not all equal
    state_path: str | None  # set on the batches that saved a state


def make_training_client(
    service_client: tinker.ServiceClient, config: Config
) -> tinker.TrainingClient:
    if config.resume_from is not None:
        return service_client.create_training_client_from_state_with_optimizer(config.resume_from)
    return service_client.create_lora_training_client(
        base_model=config.base_model, rank=config.lora_rank, seed=config.seed
    )


def group_datums(
    prompt: tinker.ModelInput, response: tinker.SampleResponse, rewards: list[float]
) -> list[tinker.Datum]:
    """One Datum per completion, with advantage = reward - group mean on its sampled tokens."""
    mean = sum(rewards) / len(rewards)
    prompt_tokens = prompt.to_ints()
    ob_len = len(prompt_tokens) - 1  # targets before the first sampled token carry no signal
    datums = []
    for sequence, reward in zip(response.sequences, rewards, strict=True):
        assert sequence.logprobs is not None
        tokens = prompt_tokens + list(sequence.tokens)
        input_tokens, target_tokens = tokens[:-1], tokens[1:]
        datums.append(
            tinker.Datum(
                model_input=tinker.ModelInput.from_ints(input_tokens),
                loss_fn_inputs={
                    "target_tokens": target_tokens,
                    "logprobs": [0.0] * ob_len + list(sequence.logprobs),
                    "advantages": [0.0] * ob_len + [reward - mean] * (len(tokens) - 1 - ob_len),
                },
            )
        )
    return datums


def train(
    training_client: tinker.TrainingClient,
    config: Config,
    tasks: Sequence[ToyTask],
    on_batch: Callable[[BatchReport], None] | None = None,
) -> list[BatchReport]:
    """The loop itself; returns one report per batch (and gives each to ``on_batch``)."""
    adam_params = tinker.AdamParams(
        learning_rate=config.learning_rate, beta1=0.9, beta2=0.95, eps=1e-8
    )
    reports = []
    for batch in range(config.start_batch, config.start_batch + config.batches):
        sampling_client = training_client.save_weights_and_get_sampling_client()
        prompts = [tinker.ModelInput.from_ints(task.prompt) for task in tasks]
        sample_futures = [
            sampling_client.sample(
                prompt=prompt,
                num_samples=config.group_size,
                sampling_params=tinker.SamplingParams(  # top_k stays Tinker's default: -1
                    max_tokens=config.completion_length,
                    temperature=config.temperature,
                    seed=config.seed * 1_000_003 + batch * len(tasks) + index,
                ),
            )
            for index, prompt in enumerate(prompts)
        ]
        datums: list[tinker.Datum] = []
        batch_rewards: list[float] = []
        for future, prompt, task in zip(sample_futures, prompts, tasks, strict=True):
            response = future.result()
            rewards = [task.reward(list(sequence.tokens)) for sequence in response.sequences]
            batch_rewards.extend(rewards)
            if max(rewards) > min(rewards):  # a group that all scored the same teaches nothing
                datums.extend(group_datums(prompt, response, rewards))

        if datums:
            fwd_bwd_future = training_client.forward_backward(datums, loss_fn=config.loss_fn)
            optim_future = training_client.optim_step(adam_params)
            fwd_bwd_future.result()
            optim_future.result()

        state_path = None
        if (batch + 1) % config.save_every == 0:
            state_path = training_client.save_state(name=f"{batch + 1:06d}").result().path
        report = BatchReport(
            batch + 1, sum(batch_rewards) / len(batch_rewards), len(datums), state_path
        )
        reports.append(report)
        if on_batch is not None:
            on_batch(report)
    return reports


def main(config: Config) -> list[BatchReport]:
    service_client = tinker.ServiceClient(base_url=config.base_url)
    training_client = make_training_client(service_client, config)
    tasks = [ToyTask.make(config.seed * 1000 + i) for i in range(config.batch_size)]
    for task in tasks:
        print(f"prompt {task.prompt}: rewarded for tokens in {task.band}", flush=True)

    def show(report: BatchReport) -> None:
        saved = f"  saved state {report.state_path}" if report.state_path else ""
        print(
            f"batch {report.batch:4d}  mean reward {report.mean_reward:.3f}  "
            f"trained on {report.trained_on}{saved}",
            flush=True,
        )

    started = time.monotonic()
    reports = train(training_client, config, tasks, on_batch=show)
    print(f"{len(reports)} batches in {time.monotonic() - started:.1f} s", flush=True)
    return reports


# ----------------------------------------------------------------------------- offline


def start_embedded_emulator(seed: int) -> None:
    """Serve the emulator on loopback in a daemon thread and point TOGETHER_* at it.

    It is left running until the process ends, so that the layer's teardown at interpreter
    exit still reaches it.
    """
    from together_rl_emulator import serve_emulator

    api_key = "tinker-style-key"
    server = serve_emulator(api_keys=[api_key], seed=seed)
    os.environ["TOGETHER_BASE_URL"] = server.base_url
    os.environ["TOGETHER_API_KEY"] = api_key


def parse_args(argv: Sequence[str] | None = None) -> tuple[Config, bool]:
    defaults = Config()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedded", action="store_true", help="start an emulator in-process")
    parser.add_argument("--base-url", default=None, help="default: TOGETHER_BASE_URL")
    parser.add_argument("--base-model", default=defaults.base_model)
    parser.add_argument("--lora-rank", type=int, default=defaults.lora_rank)
    parser.add_argument("--batches", type=int, default=defaults.batches)
    parser.add_argument("--batch-size", type=int, default=defaults.batch_size)
    parser.add_argument("--group-size", type=int, default=defaults.group_size)
    parser.add_argument("--learning-rate", type=float, default=defaults.learning_rate)
    parser.add_argument("--temperature", type=float, default=defaults.temperature)
    parser.add_argument("--completion-length", type=int, default=defaults.completion_length)
    parser.add_argument(
        "--loss-fn", choices=["importance_sampling", "ppo"], default="importance_sampling"
    )
    parser.add_argument("--save-every", type=int, default=defaults.save_every)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--resume-from", default=None, help="a state path save_state printed")
    parser.add_argument("--start-batch", type=int, default=0, help="the batch to resume at")
    args = parser.parse_args(argv)
    embedded = args.embedded
    del args.embedded
    return Config(**vars(args)), embedded


if __name__ == "__main__":
    config, embedded = parse_args()
    if embedded:
        start_embedded_emulator(config.seed)
    main(config)
