"""Result types returned by the wrapper, one per operation kind."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ForwardBackwardResult:
    """The output of a completed forward-backward (or forward) operation.

    ``loss_fn_outputs`` has one mapping per sample, in request order, from output name
    (``"logprobs"`` for the built-in losses) to a numpy array (float32 or int64) when numpy is
    installed, else a list. It is empty unless ``return_loss_fn_outputs`` was set.
    """

    operation_id: str
    loss: float
    metrics: dict[str, float] = field(default_factory=dict)
    loss_fn_outputs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def logprobs(self) -> list[Any]:
        """Per-sample ``logprobs`` output (masked slots are 0.0)."""
        return [output["logprobs"] for output in self.loss_fn_outputs if "logprobs" in output]


@dataclass(frozen=True)
class OptimStepResult:
    """A completed optimizer step: ``step`` is the trainer step it produced (1 for the first)."""

    operation_id: str
    step: int


@dataclass(frozen=True)
class WeightsSyncResult:
    """A completed weights-sync: samples submitted after it use ``weights_version``."""

    operation_id: str
    weights_version: int


@dataclass(frozen=True)
class CustomForwardBackwardResult:
    """A completed custom forward-backward (the API returns no fields; ``output`` is the raw
    object, normally empty)."""

    operation_id: str
    output: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SampledSequence:
    """One sampled completion (the prompt is not repeated).

    ``tokens``: numpy int64 (a list without numpy); ``logprobs``: numpy float64, one per token,
    the log-probability of each token under the sampling policy (``None`` when the server sent
    none); ``stop_reason``: ``"STOP_REASON_LENGTH"`` or ``"STOP_REASON_STOP"`` (any other string
    is passed through).
    """

    tokens: Any
    logprobs: Any | None
    stop_reason: str
    prompt_cache_hit_tokens: int = 0
    routed_experts_key: str | None = None

    def __len__(self) -> int:
        return len(self.tokens)


@dataclass(frozen=True)
class PolicySegment:
    """From ``start_token`` on, the tokens of a sequence came from weights ``version``."""

    start_token: int
    version: int


@dataclass(frozen=True)
class PromptSamples:
    """The completions of one model input, in the order they were sampled."""

    sequences: list[SampledSequence]
    policy_segments: list[PolicySegment] = field(default_factory=list)
    prompt_logprobs: Any | None = None
    topk_prompt_logprobs: list[dict[str, Any]] | None = None


@dataclass(frozen=True)
class SampleResult:
    """A completed sample operation: one :class:`PromptSamples` per model input, in request
    order. Indexable and iterable: ``result[0].sequences[1].tokens``."""

    operation_id: str
    results: list[PromptSamples]

    def __getitem__(self, index: int) -> PromptSamples:
        return self.results[index]

    def __iter__(self) -> Iterator[PromptSamples]:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)
