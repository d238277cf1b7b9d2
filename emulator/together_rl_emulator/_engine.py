"""One forward-backward pass: policy forward, loss, backward. Pure computation, no state."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from ._losses import compute_loss
from ._policy import PolicyParams, backward, forward
from ._validation import ForwardBackwardRequest

F64 = npt.NDArray[np.float64]


class NonFiniteLoss(Exception):
    """The loss, a metric or a gradient is NaN or infinite: the operation fails, nothing added."""


@dataclass
class PassResult:
    output: bytes  # orjson bytes of the `ForwardBackwardResult`
    grads: dict[str, F64] | None  # None for forward_only


def run_forward_backward(params: PolicyParams, request: ForwardBackwardRequest) -> PassResult:
    """Compute the result of one request against `params` (which it does not modify)."""
    # Overflow is an expected outcome (reported as NON_FINITE_LOSS), not a warning.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _run(params, request)


def _run(params: PolicyParams, request: ForwardBackwardRequest) -> PassResult:
    fwd = forward(params, [s.tokens for s in request.samples], [s.targets for s in request.samples])
    result = compute_loss(request.loss, fwd.logprobs, [s.inputs for s in request.samples])
    if not math.isfinite(result.loss):
        raise NonFiniteLoss(f"The loss is not finite ({result.loss}); nothing was accumulated.")
    bad_metrics = sorted(k for k, v in result.metrics.items() if not math.isfinite(v))
    if bad_metrics:
        raise NonFiniteLoss(
            f"The loss metric {bad_metrics[0]} is not finite; nothing was accumulated."
        )
    grads: dict[str, F64] | None = None
    if not request.forward_only:
        grads = backward(params, fwd, result.dlogp)
        for name, g in grads.items():
            if not np.isfinite(g).all():
                raise NonFiniteLoss(
                    f"The gradient of the loss is not finite (parameter {name});"
                    " nothing was accumulated."
                )
    output: dict[str, Any] = {"loss": result.loss, "metrics": result.metrics}
    if request.return_loss_fn_outputs:
        output["loss_fn_outputs"] = [
            {
                "tensors": {
                    "logprobs": {
                        # Excluded positions exactly 0.0 (np.where, not m * l, which gives -0.0).
                        "data": np.where(mask != 0, logp, 0.0).astype(np.float32),
                        "dtype": "float32",
                    }
                }
            }
            for logp, mask in zip(fwd.logprobs, result.masks, strict=True)
        ]
    else:
        output["loss_fn_outputs"] = []
    return PassResult(output=orjson.dumps(output, option=orjson.OPT_SERIALIZE_NUMPY), grads=grads)
