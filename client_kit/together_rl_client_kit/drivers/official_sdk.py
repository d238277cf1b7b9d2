"""The client kit's driver for the official SDK, `together==3.1.1`, used as its users use it:
the hand-written `SessionClient` / `Trainer` layer for operations (its own keys, retries,
upload, polling, download), the typed resource methods for plain calls.

    together-rl-client-kit --driver "python -m together_rl_client_kit.drivers.official_sdk"

The SDK's high-level layer takes no caller Idempotency-Key, so the driver does not declare
`caller-idempotency-key` (the scenario is NOT_SUPPORTED, not failed).
"""

from __future__ import annotations

import sys
from typing import Any

from .._types import FEATURES
from ._protocol import DriverCallError, serve_driver

__all__ = ["main"]

# Everything but a caller's own key, which its Trainer does not take.
SUPPORTS = [f for f in FEATURES if f != "caller-idempotency-key"]
SUPPORTS += ["forwardBackward", "getTrainingSession"]
_TIMEOUT_S = 120.0


class _SDKDriver:
    def __init__(self) -> None:
        from together import Together

        self.client = Together(max_retries=7)

    def perform(self, request: dict[str, Any]) -> Any:
        from together.post_training import SessionClient

        op, path, body = request["op"], request.get("path", {}), request.get("body") or {}
        if op == "getTrainingSession":
            session = self.client.post_training.sessions.retrieve(path["session_id"])
            return session.model_dump(mode="json")
        if op != "forwardBackward":
            raise DriverCallError(None, f"the official SDK driver does not perform {op}")
        handle = SessionClient.attach(session_id=path["session_id"])
        try:
            trainer = handle.trainer
            if body.get("forward_only"):
                result = trainer.forward(
                    samples=body["samples"],
                    loss=body["loss"],
                    return_loss_fn_outputs=bool(body.get("return_loss_fn_outputs", False)),
                    timeout=_TIMEOUT_S,
                )
            else:
                result = trainer.forward_backward(
                    samples=body["samples"],
                    loss=body["loss"],
                    return_loss_fn_outputs=body.get("return_loss_fn_outputs"),
                    timeout=_TIMEOUT_S,
                )
            return result.model_dump(mode="json")
        finally:
            handle.detach()


def describe(error: Exception) -> DriverCallError:
    status = getattr(error, "status_code", None)
    return DriverCallError(
        status if isinstance(status, int) else None, f"{type(error).__name__}: {error}"
    )


def main() -> int:
    driver = _SDKDriver()
    return serve_driver("together==3.1.1 (official SDK)", SUPPORTS, driver.perform, describe)


if __name__ == "__main__":
    sys.exit(main())
