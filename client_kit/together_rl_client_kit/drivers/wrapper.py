"""The client kit's driver for this project's wrapper, `together_rl` (its public API only).

together-rl-client-kit --driver "python -m together_rl_client_kit.drivers.wrapper"
"""

from __future__ import annotations

import sys
from typing import Any

from together_rl import APIStatusError, Client, OperationFailedError

from .._types import FEATURES
from ._protocol import DriverCallError, serve_driver

__all__ = ["main"]

SUPPORTS = [*FEATURES, "forwardBackward", "getTrainingSession"]
_RESULT_TIMEOUT_S = 120.0


def _tensor_json(value: Any) -> dict[str, Any]:
    dtype = str(getattr(value, "dtype", "float32"))
    data = value.tolist() if hasattr(value, "tolist") else list(value)
    return {"data": data, "dtype": dtype}


def perform(client: Client, request: dict[str, Any]) -> Any:
    op, path, body = request["op"], request.get("path", {}), request.get("body") or {}
    key = request.get("idempotency_key")
    if op == "forwardBackward":
        session = client.session(path["session_id"])
        future = session.forward_backward(
            body["samples"],
            body["loss"],
            forward_only=bool(body.get("forward_only", False)),
            return_loss_fn_outputs=bool(body.get("return_loss_fn_outputs", False)),
            idempotency_key=key,
        )
        result = future.result(timeout=_RESULT_TIMEOUT_S)
        return {
            "loss": result.loss,
            "metrics": result.metrics,
            "loss_fn_outputs": [
                {"tensors": {name: _tensor_json(v) for name, v in output.items()}}
                for output in result.loss_fn_outputs
            ],
        }
    if op == "getTrainingSession":
        info = client.sessions.get(path["session_id"]).info
        assert info is not None
        return {"id": info.id, "status": info.status}
    raise DriverCallError(None, f"the wrapper driver does not perform {op}")


def describe(error: Exception) -> DriverCallError:
    if isinstance(error, APIStatusError):
        return DriverCallError(error.status_code, str(error))
    if isinstance(error, OperationFailedError):
        return DriverCallError(None, str(error))
    return DriverCallError(None, f"{type(error).__name__}: {error}")


def main() -> int:
    with Client() as client:
        return serve_driver(
            "together_rl (wrapper)", SUPPORTS, lambda r: perform(client, r), describe
        )


if __name__ == "__main__":
    sys.exit(main())
