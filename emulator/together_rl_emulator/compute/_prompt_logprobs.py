"""The prompt log-probs `sample` can return: each prompt token's, and the top k per position."""

from __future__ import annotations

from typing import TypedDict

import numpy as np
import numpy.typing as npt

from ._policy_model import PolicyParams, _token_logprobs, forward
from ._sampler import Sampler
from ._sampling import _as_prompt

__all__ = ["PromptTopLogprobs", "prompt_logprobs", "topk_prompt_logprobs"]


class PromptTopLogprobs(TypedDict):
    """One entry of `topk_prompt_logprobs` (the spec's `PromptTopLogprobs`)."""

    logprobs: list[float]
    token_ids: list[int]


def prompt_logprobs(params: PolicyParams, prompt: npt.ArrayLike) -> list[float]:
    """[0.0, log p(prompt[1] | prompt[0]), ..., log p(prompt[n-1] | prompt[n-2])]."""
    tokens = _as_prompt(params, prompt)
    fwd = forward(params, [tokens[:-1]], [tokens[1:]])
    return [0.0, *(float(x) for x in fwd.logprobs[0])]


def topk_prompt_logprobs(
    params: PolicyParams, prompt: npt.ArrayLike, k: int
) -> list[PromptTopLogprobs]:
    """Per prompt position i >= 1, the k most probable tokens after prompt[i-1] and their log-probs.

    Entry 0 (nothing precedes the first token) is `{"logprobs": [], "token_ids": []}`; so is
    every entry when k = 0. Sorted by decreasing log-prob, ties by increasing token id.
    """
    tokens = _as_prompt(params, prompt)
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    sampler = Sampler(params, 1.0, 0, 1.0)
    k = min(k, params.vocab_size)
    cache: dict[int, PromptTopLogprobs] = {}
    out: list[PromptTopLogprobs] = [{"logprobs": [], "token_ids": []}]
    for prev in tokens[:-1]:
        j = int(prev) % sampler.H
        entry = cache.get(j)
        if entry is None:
            if k == 0:
                entry = {"logprobs": [], "token_ids": []}
            else:
                ctx = sampler.context(int(prev))
                logp = _token_logprobs(params.b, ctx.a, ctx.log_z)
                top = np.argpartition(-logp, k - 1)[:k] if k < logp.size else np.arange(logp.size)
                top = top[np.lexsort((top, -logp[top]))]
                entry = {
                    "logprobs": [float(x) for x in logp[top]],
                    "token_ids": [int(t) for t in top],
                }
            cache[j] = entry
        out.append({"logprobs": list(entry["logprobs"]), "token_ids": list(entry["token_ids"])})
    return out
