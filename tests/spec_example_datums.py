"""Tinker `Datum`s and `loss_fn_config`s built from the spec's valid forward-backward examples
(`spec/examples/valid/forward_backward.<loss>.json`; Tinker's loss names are the examples').

Shared by the Tinker-layer tests (tests/tinker/) and the spec capture of the layer's traffic
(tests/spec/test_sdk_capture_tinker.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["spec_example_datums", "spec_example_loss_config"]

EXAMPLES = Path(__file__).resolve().parents[1] / "spec" / "examples" / "valid"


def _example(loss_fn: str) -> dict[str, Any]:
    body: dict[str, Any] = json.loads((EXAMPLES / f"forward_backward.{loss_fn}.json").read_text())
    return body


def spec_example_datums(tinker: Any, loss_fn: str) -> list[Any]:
    """The samples of the spec's example for `loss_fn`, as Tinker `Datum`s."""
    return [
        tinker.Datum(
            model_input=tinker.ModelInput.from_ints(
                [t for c in sample["model_input"]["chunks"] for t in c["encoded_text"]["tokens"]]
            ),
            loss_fn_inputs={
                key: tinker.TensorData(data=tensor["data"], dtype=tensor["dtype"])
                for key, tensor in sample["loss_fn_inputs"].items()
            },
        )
        for sample in _example(loss_fn)["samples"]
    ]


def spec_example_loss_config(loss_fn: str) -> dict[str, float] | None:
    """The loss parameters of the spec's example for `loss_fn` (Tinker's `loss_fn_config`)."""
    loss = _example(loss_fn)["loss"]
    params = [value for key, value in loss.items() if key != "type"]
    return dict(params[0]) if params else None
