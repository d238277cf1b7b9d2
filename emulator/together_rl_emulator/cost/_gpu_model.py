"""The emulator's model of the service's GPUs: what an operation or a rollout costs.

The one place of the figures and formulas; `docs/emulator.md` ("The GPU model") states them with
their sources. Everything is derived from first principles on one GPU, Together's post-training
GPU (B200-SXM, the spec's `GpuType`):

- compute: a token through a model of N parameters costs 2N FLOPs forward and 6N forward and
  backward, N being the parameters a token goes through (for a mixture of experts, the active
  parameters: the shared weights and the experts its router picks); the GPU delivers its dense
  BF16 peak times a stated utilisation;
- memory: a decode step reads the model's BF16 weights (2N bytes, all N parameters) once for
  every sequence it advances together, an optimizer step reads and writes its state; HBM
  delivers its peak bandwidth times a stated utilisation (the roofline: a step takes the
  longer of the two);
- moving weights: a weight sync crosses NVLink, a checkpoint goes to storage;
- every operation pays a fixed overhead (scheduling, launch).

Two uses: `operation_seconds` (how long one training operation runs, for the worker's timing;
each operation kind names its cost function here in its registry entry, `service/_kinds.py`)
and `estimate_rollout` (`POST /rl/rollouts/estimate`: the rollout-only time, GPU-hours and
price of a workload). Deterministic: the same arguments give the same figures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..base import CATALOG, GPU_TYPE, BaseModel

__all__ = [
    "BANDWIDTH_UTILISATION",
    "COMPUTE_UTILISATION",
    "FORWARD_BACKWARD_SECONDS",
    "FORWARD_ONLY_SECONDS",
    "GENERATOR_GPUS_PER_REPLICA",
    "GPU",
    "OPERATION_OVERHEAD_S",
    "PRICE_CURRENCY",
    "TRAINER_GPUS_FULL_WEIGHT",
    "TRAINER_GPUS_LORA",
    "Gpu",
    "OperationWork",
    "RolloutEstimate",
    "RolloutWorkload",
    "WorkSeconds",
    "estimate_rollout",
    "inference_checkpoint_seconds",
    "operation_seconds",
    "optimizer_step_seconds",
    "sample_seconds",
    "trainer_gpus",
    "trainer_pass_seconds",
    "training_checkpoint_seconds",
    "weights_sync_seconds",
]


@dataclass(frozen=True)
class Gpu:
    name: str
    bf16_dense_flops: float  # peak FLOP/s, dense (no 2:4 sparsity)
    hbm_bytes_per_s: float
    nvlink_bytes_per_s: float  # one direction
    price_per_gpu_hour: float  # list price, `PRICE_CURRENCY`


# NVIDIA HGX B200 datasheet, per GPU: FP16/BF16 Tensor Core 4.5 PFLOPS with 2:4 sparsity, so
# 2.25 PFLOPS dense; HBM3e 7.7 TB/s; fifth-generation NVLink 1.8 TB/s (both directions).
# The price is the emulator's own (Together publishes no B200 price the project could cite).
GPU = Gpu(
    name=GPU_TYPE,
    bf16_dense_flops=2.25e15,
    hbm_bytes_per_s=7.7e12,
    nvlink_bytes_per_s=0.9e12,
    price_per_gpu_hour=4.00,
)
PRICE_CURRENCY = "USD"
# Stated utilisations: a well-fed transformer reaches about 40 % of dense peak (model FLOPs
# utilisation) and about 80 % of peak HBM bandwidth.
COMPUTE_UTILISATION = 0.40
BANDWIDTH_UTILISATION = 0.80
OPERATION_OVERHEAD_S = 0.001
# Checkpoints go to network storage: the emulator's choice of its write rate.
STORAGE_BYTES_PER_S = 2e9

# The layout of a model resource: the trainer takes 1 GPU with LoRA, 2 full-weight; each
# generator replica 1.
TRAINER_GPUS_LORA = 1
TRAINER_GPUS_FULL_WEIGHT = 2
GENERATOR_GPUS_PER_REPLICA = 1

BF16_BYTES = 2
# AdamW in mixed precision reads and writes FP32 master weights, first and second moments
# (12 bytes each way), reads the FP32 gradient (4) and writes the BF16 weights (2).
OPTIMIZER_BYTES_PER_PARAMETER = 12 + 12 + 4 + 2
# A training checkpoint holds the FP32 master weights and both moments; an inference one the
# BF16 weights.
TRAINING_CHECKPOINT_BYTES_PER_PARAMETER = 12
SECONDS_PER_HOUR = 3600.0


def trainer_gpus(lora_enabled: bool) -> int:
    return TRAINER_GPUS_LORA if lora_enabled else TRAINER_GPUS_FULL_WEIGHT


def _model(base_model: str) -> BaseModel:
    try:
        return CATALOG[base_model]
    except KeyError:
        raise ValueError(
            f"unknown base model {base_model!r}; the GPU model knows {', '.join(CATALOG)}"
        ) from None


def _compute_s(flops: float, gpus: int = 1) -> float:
    return flops / (GPU.bf16_dense_flops * COMPUTE_UTILISATION * gpus)


def _hbm_s(bytes_moved: float) -> float:
    return bytes_moved / (GPU.hbm_bytes_per_s * BANDWIDTH_UTILISATION)


def _decode_s(model: BaseModel, tokens: float, steps: float, gpus: int = 1) -> float:
    """`tokens` generated in `steps` decode steps (the sequences of a step advance together):
    the longer of their compute (active parameters) and of reading all the weights once per
    step, on each GPU."""
    compute = _compute_s(2 * model.active_parameters * tokens, gpus)
    return max(compute, steps * _hbm_s(BF16_BYTES * model.parameters))


@dataclass(frozen=True)
class OperationWork:
    """The work of one operation, read from its validated request (its kind's `work` in the
    registry, `service/_kinds.py`). `input_tokens`: tokens the trainer or generator reads (model
    input, prompts); `output_tokens`: tokens generated, over all samples; `sequences`: the
    samples generated together (0 counts as 1)."""

    input_tokens: int = 0
    output_tokens: int = 0
    sequences: int = 0

    def to_json(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "sequences": self.sequences,
        }


# The GPU time of an operation's work on a model, without the fixed overhead: each operation
# kind names its own in the registry (`OperationKind.seconds`).
WorkSeconds = Callable[[BaseModel, OperationWork], float]


def trainer_pass_seconds(flops_per_token: int) -> WorkSeconds:
    """A pass of the trainer over its input tokens: 6 FLOPs per token and active parameter
    forward and backward, 2 forward only."""
    return lambda model, work: _compute_s(
        flops_per_token * model.active_parameters * work.input_tokens
    )


FORWARD_BACKWARD_SECONDS = trainer_pass_seconds(6)
FORWARD_ONLY_SECONDS = trainer_pass_seconds(2)  # a forward-backward sent `forward_only`


def sample_seconds(model: BaseModel, work: OperationWork) -> float:
    """Prefill of the prompts, then decode steps as many as the longest sample's tokens."""
    prefill = _compute_s(2 * model.active_parameters * work.input_tokens)
    steps = -(-work.output_tokens // max(1, work.sequences))  # the longest sample's length
    return prefill + _decode_s(model, work.output_tokens, steps)


def optimizer_step_seconds(model: BaseModel, work: OperationWork) -> float:
    return _hbm_s(OPTIMIZER_BYTES_PER_PARAMETER * model.parameters)


def weights_sync_seconds(model: BaseModel, work: OperationWork) -> float:
    return BF16_BYTES * model.parameters / GPU.nvlink_bytes_per_s


def training_checkpoint_seconds(model: BaseModel, work: OperationWork) -> float:
    return TRAINING_CHECKPOINT_BYTES_PER_PARAMETER * model.parameters / STORAGE_BYTES_PER_S


def inference_checkpoint_seconds(model: BaseModel, work: OperationWork) -> float:
    return BF16_BYTES * model.parameters / STORAGE_BYTES_PER_S


def operation_seconds(
    base_model: str, seconds: WorkSeconds, work: OperationWork = OperationWork()
) -> float:
    """How long one operation runs on `base_model`: the fixed overhead and the `seconds` of its
    `work` (its kind's `OperationKind.seconds`, or `FORWARD_ONLY_SECONDS`).

    More tokens never take less time; the same tokens over more samples (shorter ones, decoded
    together) never take more. An unknown model is a ValueError naming it."""
    return OPERATION_OVERHEAD_S + seconds(_model(base_model), work)


@dataclass(frozen=True)
class RolloutWorkload:
    """The body of `POST /rl/rollouts/estimate`, validated (the letters are the reference's)."""

    base_model: str
    episodes: int  # N
    concurrency: int  # B, over all generator replicas
    prompt_tokens: int  # P
    turns: int  # T
    generated_tokens_per_turn: int  # O
    added_tokens_per_turn: int  # K (>= O: the earlier turn's O tokens + environment tokens)
    # Absent from a request: the spec's `x-server-default` (`_rollouts.py` fills them in).
    num_generator_replicas: int
    lora_enabled: bool
    sampling_only: bool
    episodes_per_prompt: int | None = None
    distinct_prompts_per_replica: int | None = None  # Q


@dataclass(frozen=True)
class RolloutEstimate:
    rollout_seconds: float
    generator_gpu_hours: float
    billed_gpu_hours: float
    price_per_gpu_hour: float
    price: float
    currency: str = PRICE_CURRENCY


def _episodes_sharing_a_prompt(w: RolloutWorkload, per_replica: float) -> float:
    """How many running episodes of a replica read one prompt prefilled once."""
    if w.distinct_prompts_per_replica is not None:
        return max(1.0, per_replica / w.distinct_prompts_per_replica)
    if w.episodes_per_prompt is not None:
        return max(1.0, min(float(w.episodes_per_prompt), per_replica))
    return 1.0


def estimate_rollout(w: RolloutWorkload) -> RolloutEstimate:
    """Rollout-only time on saturated generator GPUs, and what the model resource bills for it.

    Episodes run `concurrency` at a time (never more than there are), split evenly over the
    replicas, in `episodes / concurrency` waves. Each episode prefills its prompt (once per
    group of episodes sharing it) and, before each later turn, the environment's tokens (the
    earlier turn's generated tokens are reused); each turn decodes its tokens, the running
    episodes of a replica advancing together. Billed: every GPU of the resource for that time
    (trainer + generators), only the generators' for a sampling-only resource."""
    model = _model(w.base_model)
    gpus = w.num_generator_replicas * GENERATOR_GPUS_PER_REPLICA
    running = min(w.concurrency, w.episodes)
    per_replica = running / w.num_generator_replicas
    waves = w.episodes / running
    environment_tokens = (w.turns - 1) * (w.added_tokens_per_turn - w.generated_tokens_per_turn)
    prompt_tokens = w.prompt_tokens / _episodes_sharing_a_prompt(w, per_replica)
    prefill_tokens = w.episodes * (prompt_tokens + environment_tokens)
    prefill = _compute_s(2 * model.active_parameters * prefill_tokens, gpus)
    generated = w.episodes * w.turns * w.generated_tokens_per_turn
    steps = waves * w.turns * w.generated_tokens_per_turn  # on every replica at once
    requests = waves * w.turns * OPERATION_OVERHEAD_S
    seconds = prefill + _decode_s(model, generated, steps, gpus) + requests
    hours = seconds / SECONDS_PER_HOUR
    billed_gpus = gpus + (0 if w.sampling_only else trainer_gpus(w.lora_enabled))
    return RolloutEstimate(
        rollout_seconds=seconds,
        generator_gpu_hours=gpus * hours,
        billed_gpu_hours=billed_gpus * hours,
        price_per_gpu_hour=GPU.price_per_gpu_hour,
        price=billed_gpus * hours * GPU.price_per_gpu_hour,
    )
