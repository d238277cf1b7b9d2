"""Exceptions raised by the wrapper. Every one derives from :class:`TogetherRLError`."""

from __future__ import annotations

from typing import Any

__all__ = [
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "InternalServerError",
    "InvalidRequestError",
    "MalformedResponseError",
    "NotFoundError",
    "NotReadyError",
    "OperationFailedError",
    "OperationTimeoutError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "ResourceStateError",
    "TogetherRLError",
    "UnprocessableEntityError",
]


class TogetherRLError(Exception):
    """Base class of every error the wrapper raises."""


class InvalidRequestError(TogetherRLError, ValueError):
    """The request was refused before anything was sent; ``field`` names the culprit."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class APIConnectionError(TogetherRLError):
    """The server could not be reached, or the connection dropped, on every attempt."""

    def __init__(self, message: str, *, operation: str) -> None:
        super().__init__(message)
        self.operation = operation


class APITimeoutError(APIConnectionError, TimeoutError):
    """The HTTP request (or the call's overall deadline) timed out."""


class APIStatusError(TogetherRLError):
    """A non-2xx answer to ``operation`` (e.g. ``POST /v1/rl/training-sessions``); ``message``,
    ``param``, ``type`` and ``code`` from its JSON error body; ``body``: the JSON, or the text."""

    def __init__(
        self,
        status_code: int,
        *,
        operation: str,
        message: str,
        param: str | None = None,
        type: str | None = None,
        code: str | None = None,
        body: Any = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        where = f" (param: {param})" if param else ""
        super().__init__(f"{operation} -> HTTP {status_code}: {message}{where}")
        self.status_code = status_code
        self.operation = operation
        self.message = message
        self.param = param
        self.type = type
        self.code = code
        self.body = body
        self.headers = headers or {}


class BadRequestError(APIStatusError):
    """400: the request is invalid; ``param`` names the field."""


class AuthenticationError(APIStatusError):
    """401: the API key is missing or unknown."""


class PermissionDeniedError(APIStatusError):
    """403: the API key may not do this."""


class NotFoundError(APIStatusError):
    """404: no such resource for this API key."""


class ConflictError(APIStatusError):
    """409: the resource's state forbids it (stopping model resources while sessions run), or
    its Idempotency-Key is still in use; raised once the retries are spent."""


class PayloadTooLargeError(APIStatusError):
    """413: the request body is larger than the server accepts."""


class UnprocessableEntityError(APIStatusError):
    """422: e.g. the Idempotency-Key was already used with a different body."""


class RateLimitError(APIStatusError):
    """429: too many requests (retried first, honouring ``Retry-After``)."""


class InternalServerError(APIStatusError):
    """5xx (including non-standard codes such as 520)."""


#: the exception class of an HTTP status (other 5xx: InternalServerError; others: APIStatusError)
STATUS_ERRORS: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


class OperationFailedError(TogetherRLError):
    """The operation reached ``TRAINING_OPERATION_STATUS_FAILED``."""

    def __init__(self, operation_id: str, code: str | None, message: str | None) -> None:
        super().__init__(f"operation {operation_id} failed: {code or 'no code'}: {message or ''}")
        self.operation_id = operation_id
        self.code = code
        self.message = message


class OperationTimeoutError(TogetherRLError, TimeoutError):
    """``future.result(timeout=)`` expired (``waited`` s); the operation keeps running: call
    ``result`` again, or re-attach with ``session.get_operation(kind, operation_id)``."""

    def __init__(self, operation_id: str, waited: float) -> None:
        super().__init__(
            f"operation {operation_id} not finished after {waited:.3f} s; it keeps running, "
            "collect it later by id"
        )
        self.operation_id = operation_id
        self.waited = waited


class ResourceStateError(TogetherRLError):
    """A session or model resource reached a state from which it cannot become usable."""


class NotReadyError(TogetherRLError, TimeoutError):
    """A session or model resources not ready within ``timeout``; they may still become so."""


class MalformedResponseError(TogetherRLError):
    """A 2xx answer the wrapper cannot read (not JSON, or not the spec's shape); ``operation``
    names the request when known; ``body`` holds (the start of) what was received."""

    def __init__(self, message: str, *, operation: str | None = None, body: Any = None) -> None:
        super().__init__(f"{operation}: {message}" if operation else message)
        self.operation = operation
        self.body = body
