"""A training session's trainer state and the operations that change it, over numpy.

Pure computation, no I/O: the engine (`_engine.py`) calls these functions on a `fork()` of the
cached state, and the store persists the fork it is handed back in a `TrainerUpdate`.

- `accumulate`: add one pass's gradients (forward-backward) to the accumulator.
- `custom_forward_backward`: backpropagate client-computed dLoss/dlogp and accumulate it.
- `optim_step`: AdamW with global-norm clipping on the accumulated gradients, which it then
  clears; or, with Muon settings (a session on resources created with `optimizer_config.muon`),
  Muon on the 2-D parameters and AdamW on the others (`_muon.py`). With nothing accumulated it
  still steps (zero gradients: the moments decay and keep moving the weights, weight decay
  applies), as torch's optimizers do with zero gradients.
- `weights_sync`: publish the trainer's weights to the sampler. `sample` always reads
  `sampler_params`, so an optim-step changes nothing a sample sees until the next weights-sync.

Invalid arguments raise `InvalidParam` (a ValueError naming the wire field); every function
leaves the state untouched when it raises. Bounds and choices are the spec's (`_facts.py`).

No function here writes into an array of the state: each rebinds the state's fields to new
arrays. So arrays may be shared between states (the sampler's with the trainer's until the first
optimizer step), and `TrainerState.fork` is a shallow copy.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..base import (
    ADAM_BOUNDS,
    ADAM_DEFAULTS,
    F64,
    I64,
    MUON_DEFAULTS,
    WEIGHT_SYNC_TYPES,
    float_arrays_under,
)
from ._muon import SCALING_MATCH_ADAM, SCALING_ORIGINAL, MuonParams, muon_step
from ._optim import AdamParams, AdamState, adamw_step
from ._policy_model import PolicyParams, backward, forward, init_policy

__all__ = [
    "GRADS_CHANGED",
    "TRAINER_CHANGED",
    "InvalidParam",
    "NonFiniteUpdate",
    "TrainerState",
    "TrainerUpdate",
    "accumulate",
    "custom_forward_backward",
    "optim_step",
    "parse_adam_params",
    "parse_muon_params",
    "pass_update",
    "weights_sync",
]


class InvalidParam(ValueError):
    """A bad argument: `param` is its wire path (e.g. `adam_params.beta1`), `reason` says why."""

    def __init__(self, param: str, reason: str) -> None:
        super().__init__(f"{param}: {reason}")
        self.param = param
        self.reason = reason


class NonFiniteUpdate(Exception):
    """The result would hold NaN or infinity: the operation fails and the state is unchanged."""


@dataclass
class TrainerState:
    params: PolicyParams  # trainer weights
    sampler_params: PolicyParams  # weights as of the last weights-sync (what `sample` uses)
    grads: dict[str, F64]  # accumulated since the last optim-step (zeros initially)
    accumulated_passes: int
    adam: AdamState
    step: int  # optimizer steps applied
    weights_version: int  # bumped by each weights-sync
    # Muon's momentum buffers of the 2-D parameters (empty until a Muon step); the AdamW
    # moments of the other parameters are in `adam`.
    muon_momentum: dict[str, F64] = dataclasses.field(default_factory=dict)

    @classmethod
    def initial(cls, vocab_size: int, seed: int) -> TrainerState:
        return cls.from_policy(init_policy(vocab_size, seed))

    @classmethod
    def from_policy(cls, params: PolicyParams) -> TrainerState:
        """The state before any operation: `params` (also the sampler's), nothing accumulated."""
        return cls(
            params=params,
            sampler_params=params,  # shared: nothing writes into the arrays (module docstring)
            grads={k: np.zeros_like(a) for k, a in params.to_arrays().items()},
            accumulated_passes=0,
            adam=AdamState(),
            step=0,
            weights_version=0,
        )

    def fork(self) -> TrainerState:
        """A copy an operation may change (without touching `self`): shallow, since operations
        rebind fields to new arrays and never write into them."""
        return dataclasses.replace(self)

    def to_arrays(self) -> dict[str, npt.NDArray[Any]]:
        """Flat name -> array dict for `np.savez` (arrays are shared, not copied)."""
        out: dict[str, npt.NDArray[Any]] = {}
        for prefix, arrays in (
            ("params/", self.params.to_arrays()),
            ("sampler/", self.sampler_params.to_arrays()),
            ("grads/", self.grads),
            ("adam/", self.adam.to_arrays()),
            ("muon/", self.muon_momentum),
        ):
            out.update({prefix + k: a for k, a in arrays.items()})
        for name in ("accumulated_passes", "step", "weights_version"):
            out[name] = np.array(getattr(self, name), dtype=np.int64)
        return out

    @classmethod
    def from_arrays(cls, d: Mapping[str, npt.ArrayLike]) -> TrainerState:
        group = functools.partial(float_arrays_under, d)
        params = PolicyParams.from_arrays(group("params/"))
        grads = group("grads/")
        if set(grads) != set(params.to_arrays()):
            raise ValueError("the stored gradients do not match the parameters")
        return cls(
            params=params,
            sampler_params=PolicyParams.from_arrays(group("sampler/")),
            grads=grads,
            accumulated_passes=int(np.asarray(d["accumulated_passes"])),
            adam=AdamState.from_arrays(group("adam/")),
            step=int(np.asarray(d["step"])),
            weights_version=int(np.asarray(d["weights_version"])),
            muon_momentum=group("muon/"),
        )


def accumulate(state: TrainerState, grads: Mapping[str, F64]) -> None:
    """Add one pass's gradients (keys and shapes of `params.to_arrays()`) to the accumulator."""
    if set(grads) != set(state.grads):
        raise ValueError(f"gradient keys {sorted(grads)} != parameter keys {sorted(state.grads)}")
    for key, g in grads.items():
        if np.shape(g) != state.grads[key].shape:
            raise ValueError(
                f"gradient {key} has shape {np.shape(g)}, not {state.grads[key].shape}"
            )
    state.grads = {key: a + grads[key] for key, a in state.grads.items()}
    state.accumulated_passes += 1


def parse_adam_params(
    adam_params: Mapping[str, Any] | None, field_name: str = "adam_params"
) -> AdamParams:
    """`AdamParams` from the wire object, defaults for absent (or null) fields; bounds checked.

    Bounds are the spec's (`AdamParams`), and every value must be finite. grad_clip_norm 0
    disables clipping; unset means the default 1.0.
    """
    hp = AdamParams(**ADAM_DEFAULTS)
    if adam_params is None:
        return hp
    if not isinstance(adam_params, Mapping):
        raise InvalidParam(field_name, f"must be an object, got {type(adam_params).__name__}")
    for name, value in adam_params.items():
        param = f"{field_name}.{name}"
        if name not in ADAM_BOUNDS:
            raise InvalidParam(param, f"unknown field; allowed: {', '.join(ADAM_BOUNDS)}")
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvalidParam(param, f"must be a number, got {type(value).__name__}")
        number = float(value)
        if not math.isfinite(number):
            raise InvalidParam(param, f"must be a finite number, got {number}")
        problem = ADAM_BOUNDS[name].violation(number)
        if problem is not None:
            raise InvalidParam(param, f"{problem}, got {value}")
        setattr(hp, name, number)
    return hp


def parse_muon_params(
    muon_params: Mapping[str, Any] | None, scaling_strategy: str | None
) -> MuonParams:
    """`MuonParams` from the wire object (bounds judged by the request's validator), defaults for
    absent fields; `scaling_strategy` from the resources' `optimizer_config.muon`."""
    given = {k: v for k, v in (muon_params or {}).items() if v is not None and k != "adam"}
    values = {**MUON_DEFAULTS, **given}
    adam = parse_adam_params((muon_params or {}).get("adam"), "muon_params.adam")
    return MuonParams(
        learning_rate=float(values["learning_rate"]),
        momentum=float(values["momentum"]),
        newton_schulz_steps=int(values["newton_schulz_steps"]),
        weight_decay=float(values["weight_decay"]),
        grad_clip_norm=float(values["grad_clip_norm"]),
        adam=adam,
        scaling_strategy=(
            SCALING_ORIGINAL if scaling_strategy == SCALING_ORIGINAL else SCALING_MATCH_ADAM
        ),
    )


def optim_step(
    state: TrainerState,
    adam_params: Mapping[str, Any] | None,
    muon: MuonParams | None = None,
) -> int:
    """One optimizer step on the accumulated gradients, which it then clears; returns the new
    step. AdamW with `adam_params`, or Muon when `muon` is given (`adam_params` then unused).

    Raises InvalidParam for bad `adam_params`, NonFiniteUpdate if the new weights or optimizer
    state would not be finite; the state is unchanged in both cases.
    """
    hp = parse_adam_params(adam_params)
    params = {k: a.copy() for k, a in state.params.to_arrays().items()}
    adam = AdamState(
        step=state.adam.step,
        m={k: a.copy() for k, a in state.adam.m.items()},
        v={k: a.copy() for k, a in state.adam.v.items()},
    )
    momentum = {k: a.copy() for k, a in state.muon_momentum.items()}
    if muon is None:
        adamw_step(params, state.grads, adam, hp)
    else:
        muon_step(params, state.grads, momentum, adam, muon)
    for name, values in (
        ("weights", params),
        ("first moments", adam.m),
        ("second moments", adam.v),
        ("Muon momentum", momentum),
    ):
        for key, a in values.items():
            if not np.isfinite(a).all():
                raise NonFiniteUpdate(
                    f"The optimizer step would make the {name} of {key} non-finite;"
                    " nothing was applied."
                )
    state.params = PolicyParams.from_arrays(params)
    state.adam = adam
    state.muon_momentum = momentum
    state.grads = {k: np.zeros_like(g) for k, g in state.grads.items()}
    state.accumulated_passes = 0
    state.step += 1
    return state.step


def weights_sync(state: TrainerState, sync_type: str) -> int:
    """Copy the trainer weights to the sampler; returns the new weights version.

    The emulator has one process and no replicas to publish to, so the three sync types behave
    the same: the copy is complete when the operation completes (a sample submitted after it
    sees the new weights), i.e. SYNCHRONOUS semantics.
    """
    if sync_type not in WEIGHT_SYNC_TYPES:
        raise InvalidParam(
            "weight_sync_type", f"must be one of {', '.join(WEIGHT_SYNC_TYPES)}, got {sync_type!r}"
        )
    state.sampler_params = state.params.copy()
    state.weights_version += 1
    return state.weights_version


def custom_forward_backward(
    state: TrainerState,
    samples: Sequence[tuple[npt.ArrayLike, npt.ArrayLike, npt.ArrayLike | None]],
    gradients: Sequence[npt.ArrayLike],
    routes: Sequence[I64 | None] | None = None,
) -> None:
    """Backpropagate client gradients dLoss/dlogp and accumulate them as one pass.

    `samples[i]` is (input tokens, target tokens, weights-or-mask or None); `gradients[i]` has one
    value per token of sample i. Positions whose weight is 0 get exactly 0.0, every other position
    its gradient unscaled (a fractional weight only masks here: the client's gradient already
    carries whatever weighting it wants), so the accumulated gradients equal those of a built-in
    loss whose dL/dlogp is the same array.
    """
    if len(gradients) != len(samples):
        raise InvalidParam(
            "gradients", f"has {len(gradients)} entries but there are {len(samples)} samples"
        )
    inputs: list[I64] = []
    targets: list[I64] = []
    dlogp: list[F64] = []
    for i, ((tokens, target, weights), grad) in enumerate(zip(samples, gradients, strict=True)):
        x = np.asarray(tokens, dtype=np.int64)
        y = np.asarray(target, dtype=np.int64)
        g = np.asarray(grad, dtype=np.float64)
        vocab = state.params.vocab_size
        for what, arr in (("model_input", x), ("loss_fn_inputs.target_tokens", y)):
            if arr.ndim != 1 or (arr.size and (int(arr.min()) < 0 or int(arr.max()) >= vocab)):
                raise InvalidParam(
                    f"samples[{i}].{what}", f"must be a list of token ids in [0, {vocab})"
                )
        if y.shape != x.shape:
            raise InvalidParam(
                f"samples[{i}].loss_fn_inputs.target_tokens",
                f"has {y.size} values but the model input has {x.size} tokens",
            )
        if g.shape != y.shape:
            raise InvalidParam(
                f"gradients[{i}].data",
                f"has {g.size} values but samples[{i}] has {y.size} target tokens",
            )
        if weights is None:
            dlogp.append(g.copy())
        else:
            w = np.asarray(weights, dtype=np.float64)
            if w.shape != y.shape:
                raise InvalidParam(
                    f"samples[{i}].loss_fn_inputs",
                    f"weights/mask has {w.size} values but there are {y.size} target tokens",
                )
            dlogp.append(np.where(w != 0, g, 0.0))
        if not np.isfinite(dlogp[-1]).all():
            raise InvalidParam(f"gradients[{i}].data", "holds a value that is not finite")
        inputs.append(x)
        targets.append(y)
    grads = backward(state.params, forward(state.params, inputs, targets, routes), dlogp)
    for key, g in grads.items():
        if not np.isfinite(g).all():
            raise NonFiniteUpdate(
                f"The gradient is not finite (parameter {key}); nothing was accumulated."
            )
    accumulate(state, grads)


GRADS_CHANGED = "grads"  # a pass was accumulated: only the gradients changed
TRAINER_CHANGED = "trainer"  # an optimizer step or weights-sync: the rest of the state changed


@dataclass(frozen=True)
class TrainerUpdate:
    """A new trainer state (a fork, never the cached object) and what of it changed."""

    state: TrainerState
    change: str  # GRADS_CHANGED or TRAINER_CHANGED


def pass_update(state: TrainerState, grads: Mapping[str, F64]) -> TrainerUpdate:
    """`state` (unchanged) plus one accumulated pass of `grads`, as an update to commit."""
    new = state.fork()
    accumulate(new, grads)
    return TrainerUpdate(new, GRADS_CHANGED)
