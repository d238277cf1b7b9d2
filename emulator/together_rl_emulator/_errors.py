"""The one error type of the emulator and its JSON body (the spec's `ErrorData`)."""

from __future__ import annotations

from typing import Any

__all__ = ["ApiError", "invalid"]


class ApiError(Exception):
    """A request the emulator refuses. Rendered as `{"error": {message, type, param, code}}`."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = "invalid_request_error",
        param: str | None = None,
        code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type
        self.param = param
        self.code = code
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "message": self.message,
                "type": self.type,
                "param": self.param,
                "code": self.code,
            }
        }


def invalid(param: str | None, reason: str) -> ApiError:
    """400 naming the field path and the reason: `samples[2].loss_fn_inputs.advantages: ...`."""
    message = f"{param}: {reason}" if param else reason
    return ApiError(400, message, param=param, code="invalid_request")
