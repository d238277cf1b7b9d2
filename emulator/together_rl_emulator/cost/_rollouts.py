"""`POST /rl/rollouts/estimate`: the body validated against the spec, priced by the GPU model.

The spec's `RolloutEstimateRequest` properties are the fields of `_gpu_model.RolloutWorkload`
(apart from `gpu_type`, which picks the GPU); absent optional fields take the spec's
`x-server-default`. The cross-field rule (`x-at-least`) is checked with the schema.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from ..base import CATALOG, invalid, spec_defaults
from ..checking import validate_schema
from ._gpu_model import GPU, RolloutWorkload, estimate_rollout

__all__ = ["REQUEST_SCHEMA", "estimate_rollouts"]

REQUEST_SCHEMA = "RolloutEstimateRequest"


def estimate_rollouts(body: Any) -> dict[str, Any]:
    """The `RolloutEstimate` of a request body (400 naming the field when it is invalid)."""
    validate_schema(REQUEST_SCHEMA, body)
    assert isinstance(body, dict)
    fields = {**spec_defaults(REQUEST_SCHEMA), **body}
    if fields["base_model"] not in CATALOG:
        raise invalid(
            "base_model",
            f"{fields['base_model']!r} does not support rollout estimates; supported:"
            f" {', '.join(CATALOG)} (GET /v1/rl/supported-models)",
        )
    gpu_type = fields.pop("gpu_type", GPU.name)
    if gpu_type != GPU.name:
        raise invalid(
            "gpu_type", f"{gpu_type!r} does not support rollout estimates; {GPU.name} does"
        )
    estimate = dataclasses.asdict(estimate_rollout(RolloutWorkload(**fields)))
    if not all(math.isfinite(v) for v in estimate.values() if isinstance(v, float)):
        # No answer carries a non-finite number (JSON has none).
        raise invalid(None, "the inputs are too large: the estimate does not fit a double")
    return estimate
