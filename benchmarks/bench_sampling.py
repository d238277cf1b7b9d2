"""Sampling in the emulator with Qwen/Qwen3-8B's vocabulary (151,936 tokens): two tables.

    .venv/bin/python benchmarks/bench_sampling.py [--repeats N]

Top-k / top-p, before and after the per-cluster threshold search: "before" is the previous
truncation, kept here verbatim in spirit (per distinct context bucket, a full (V,) argsort of the
logits, then one draw over the kept tokens); "after" is `sample_sequences`. The
untruncated row has no "before": nothing is truncated there, and the legacy loop draws token by
token where `sample_sequences` computes every bucket at once (the second table compares those).

Whole requests (untruncated, temperature 1), a fresh sampler each (its set-up included): every
sequence token after token (`draw_one`) against all of them a step at a time
(`sample_prompts`), beside the request's realistic time on Qwen3-8B (`cost/_gpu_model.py`).
Prints both tables; writes nothing.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
from together_rl_emulator.compute import (
    PolicyParams,
    Sampler,
    SamplerContext,
    draw_one,
    init_policy,
    padded,
    pick,
    sample_prompts,
    sample_sequences,
)
from together_rl_emulator.cost import OperationWork, operation_seconds, sample_seconds

__all__ = ["main", "requests_table"]

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
VOCAB = 151_936
PROMPT = np.array([5, 17, 300], dtype=np.int64)
CASES: list[dict[str, Any]] = [
    {},
    {"top_k": 50},
    {"top_p": 0.9},
    {"temperature": 0.7, "top_k": 50, "top_p": 0.9},
    {"top_k": 5000},
]
SHAPES = [(4, 64), (64, 512)]  # (num_samples, max_tokens)
BEFORE_MAX_TOKENS = 4 * 64  # "before" is only run on shapes this small (it takes seconds)
REQUESTS = [(8, 8, 32), (64, 8, 128)]  # (prompts, num_samples, max_tokens)
REQUEST_PROMPT = list(range(1, 17))


class _LegacySampler(Sampler):
    """The truncation this change replaced: a full argsort of the (V,) logits per bucket."""

    def draw(self, prev: int, u1: float, u2: float) -> int:
        if not self.truncated:
            return super().draw(prev, u1, u2)
        tokens, cdf = self._legacy_truncated(prev, self.context(prev))
        return int(tokens[pick(cdf, u1)])

    def _legacy_truncated(self, prev: int, ctx: SamplerContext) -> tuple[I64, F64]:
        cache: dict[int, tuple[I64, F64]] = self.__dict__.setdefault("legacy_cache", {})
        j = prev % self.H
        if j in cache:
            return cache[j]
        logp = (padded(self.params.b, self.K, 0.0) + (ctx.a - ctx.log_z)).ravel()[: self.V]
        scaled = logp / self.temperature
        order = np.argsort(-scaled, kind="stable")
        if self.top_k:
            order = order[: self.top_k]
        cdf = np.cumsum(np.exp(scaled[order] - float(scaled[order[0]])))
        if self.top_p < 1:
            keep = int(np.searchsorted(cdf, self.top_p * cdf[-1], side="left")) + 1
            order, cdf = order[:keep], cdf[:keep]
        if sum(o.size for o, _ in cache.values()) * 2 > 8_000_000:  # its memory budget
            cache.clear()
        cache[j] = (order.astype(np.int64), cdf)
        return cache[j]


def legacy_sample(params: PolicyParams, num_samples: int, max_tokens: int, seed: int,
                  temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0) -> int:  # fmt: skip
    """The old sampling loop (same draw order), over `_LegacySampler`; returns the token count."""
    sampler = _LegacySampler(params, temperature, top_k, top_p)
    rng = np.random.default_rng(seed)
    produced = 0
    for _ in range(num_samples):
        uniforms = rng.random((max_tokens, 2))
        prev = int(PROMPT[-1])
        for t in range(max_tokens):
            token = sampler.draw(prev, float(uniforms[t, 0]), float(uniforms[t, 1]))
            sampler.logprob(sampler.context(prev), token)
            prev = token
            produced += 1
    return produced


def timed(fn: Callable[..., object], repeats: int, *args: Any, **kwargs: Any) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(*args, **kwargs)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def distinct_contexts(params: PolicyParams, n: int, m: int, kw: dict[str, Any]) -> int:
    seqs = sample_sequences(params, PROMPT, num_samples=n, max_tokens=m, seed=0, **kw)
    prevs = np.concatenate([np.r_[PROMPT[-1], s.tokens[:-1]] for s in seqs])
    return int(np.unique(prevs % params.W.shape[0]).size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1, help="runs per cell (median)")
    args = parser.parse_args()
    params = init_policy(VOCAB, 0)
    print(f"# sampling, vocab {VOCAB:,}, init policy (seed 0); python {platform.python_version()},"
          f" numpy {np.__version__}; median of {args.repeats}")  # fmt: skip
    header = ("shape", "sampling params", "contexts", "before s", "after s", "speed-up",
              "after ms/context")  # fmt: skip
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for n, m in SHAPES:
        for kw in CASES:
            after = timed(sample_sequences, args.repeats, params, PROMPT, num_samples=n,
                          max_tokens=m, seed=0, **kw)  # fmt: skip
            contexts = distinct_contexts(params, n, m, kw)
            if kw and n * m <= BEFORE_MAX_TOKENS:
                before = timed(legacy_sample, args.repeats, params, n, m, 0, **kw)
                cells = [f"{before:.3f}", f"{after:.3f}", f"{before / after:.0f}x"]
            else:
                cells = ["-", f"{after:.3f}", "-"]
            name = ", ".join(f"{k}={v}" for k, v in kw.items()) or "(none: untruncated)"
            per_context = f"{1000 * after / contexts:.2f}"
            print(f"| {n} x {m} | {name} | {contexts} | " + " | ".join(cells)
                  + f" | {per_context} |")  # fmt: skip
    print()
    requests_table(params, args.repeats)


def one_by_one(params: PolicyParams, prompts: int, samples: int, tokens: int) -> None:
    """A request's sequences token after token, as before they were drawn together."""
    sampler = Sampler(params, 1.0, 0, 1.0)
    sampler.prepare(prompts * samples * tokens)
    for seed in range(prompts):
        uniforms = np.random.default_rng(seed).random((samples, tokens, 2))
        for block in uniforms:
            draw_one(sampler, REQUEST_PROMPT[-1], block, frozenset())


def together(params: PolicyParams, prompts: int, samples: int, tokens: int) -> None:
    sample_prompts(params, [REQUEST_PROMPT] * prompts, seeds=list(range(prompts)),
                   num_samples=samples, max_tokens=tokens)  # fmt: skip


def requests_table(params: PolicyParams, repeats: int) -> None:
    header = ("prompts x samples x tokens", "token by token ms", "together ms", "realistic ms")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for p, n, m in REQUESTS:
        alone = timed(one_by_one, repeats, params, p, n, m)
        at_once = timed(together, repeats, params, p, n, m)
        work = OperationWork(len(REQUEST_PROMPT) * n * p, p * n * m, p * n)
        gpu = operation_seconds("Qwen/Qwen3-8B", sample_seconds, work)
        print(f"| {p} x {n} x {m} | {1000 * alone:.0f} | {1000 * at_once:.0f} | {1000 * gpu:.0f} |")


if __name__ == "__main__":
    main()
