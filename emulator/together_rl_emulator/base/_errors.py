"""The one error type of the emulator and its JSON body (the spec's `ErrorData`)."""

from __future__ import annotations

from typing import Any, TypeVar

from ._spec import EMULATOR_RULE_NOTE

__all__ = [
    "SESSION_NOT_ACTIVE",
    "ApiError",
    "found_or_404",
    "invalid",
    "not_found",
    "session_not_active",
]

_Found = TypeVar("_Found")


#: The one wording of "the session cannot run this": an operation FAILED with SESSION_NOT_ACTIVE.
SESSION_NOT_ACTIVE = "The training session is not active."


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
        #: Whether the refused rule is this emulator's own choice (`x-source: emulator`): True
        #: once the message says so, False for a rule sourced elsewhere, None when the code that
        #: raised it does not know (the app then asks the operation's `x-rules`).
        self.emulator_rule: bool | None = None

    def mark_emulator_rule(self) -> ApiError:
        """Say in the message that the refused rule is this emulator's choice, so the live API
        may accept the request (once; returns self)."""
        if not self.emulator_rule:
            self.message += EMULATOR_RULE_NOTE
            self.emulator_rule = True
        return self

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "message": self.message,
                "type": self.type,
                "param": self.param,
                "code": self.code,
            }
        }


def invalid(param: str | None, reason: str, *, emulator_rule: bool | None = None) -> ApiError:
    """400 naming the field path and the reason: `samples[2].loss_fn_inputs.advantages: ...`;
    `emulator_rule` as `ApiError.emulator_rule` (True: the message says so)."""
    message = f"{param}: {reason}" if param else reason
    error = ApiError(400, message, param=param, code="invalid_request")
    if emulator_rule:
        return error.mark_emulator_rule()
    error.emulator_rule = emulator_rule
    return error


def not_found(what: str, param: str, value: str) -> ApiError:
    """404 for a missing resource, worded the same whether it does not exist or belongs to
    another API key: `session_id: no training session 'sess-1' for this API key`."""
    return ApiError(
        404, f"{param}: no {what} {value!r} for this API key", type="not_found", param=param,
        code="not_found",
    )  # fmt: skip


def found_or_404(found: _Found | None, what: str, param: str, value: str) -> _Found:
    """`found`, or (None: missing or another key's) `not_found(what, param, value)` raised."""
    if found is None:
        raise not_found(what, param, value)
    return found


def session_not_active(status: str, kind: str) -> ApiError:
    """400 for an operation submitted to a session that is not RUNNING (`status`)."""
    return ApiError(
        400,
        f"session_id: {SESSION_NOT_ACTIVE[0].lower()}{SESSION_NOT_ACTIVE[1:-1]} ({status});"
        f" {kind} needs a TRAINING_SESSION_STATUS_RUNNING session",
        param="session_id",
        code="session_not_active",
    )
