"""HTTP plumbing every route shares: JSON answers, reading a bounded body, decoding it, and the
one way a query parameter or an optional body is read.

Each answer is JSON; errors are the spec's `ErrorData` (`ApiError.body()`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

import orjson
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from ..base import ApiError, invalid
from ..checking import validate_parameter

__all__ = [
    "API_PREFIX",
    "JSON",
    "error_response",
    "ignore_optional_body",
    "json_object",
    "json_response",
    "parse_json",
    "query_parameter",
    "read_body",
    "refuse_undeclared_query",
    "require_object",
]

API_PREFIX = "/v1"
JSON = "application/json"


def json_response(
    content: Any, status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    body = content if isinstance(content, bytes) else orjson.dumps(content)
    return Response(body, status_code=status, headers=headers, media_type=JSON)


def error_response(error: ApiError) -> Response:
    return json_response(error.body(), error.status, error.headers)


async def read_body(request: Request, limit: int, *, json_only: bool = True) -> bytes:
    """The raw body, refusing (413) a declared or streamed size over `limit` and (415, with
    `json_only`) a non-empty body whose Content-Type is not JSON."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise invalid("Content-Length", "must be a non-negative integer")
        if int(declared) > limit:
            raise _too_large(limit)
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise _too_large(limit)
            chunks.append(chunk)
    except ClientDisconnect:
        raise invalid(None, "the client disconnected before sending the whole body") from None
    body = b"".join(chunks)
    if json_only and not _blank(body):
        _require_json_media_type(request.headers.get("content-type"))
    return body


def _require_json_media_type(content_type: str | None) -> None:
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media != JSON and not media.endswith("+json"):
        raise ApiError(
            415,
            f"Content-Type: expected {JSON}, got {content_type or 'none'}",
            param="Content-Type",
            code="unsupported_media_type",
        )


def _too_large(limit: int) -> ApiError:
    return ApiError(
        413,
        f"the request body is larger than this server accepts ({limit} bytes)",
        code="payload_too_large",
    )


def _blank(raw: bytes) -> bool:
    """Empty or only whitespace (without copying a large body, as `raw.strip()` would)."""
    return not raw or raw.isspace()


def parse_json(raw: bytes, *, allow_empty: bool = False) -> Any:
    if _blank(raw):
        if allow_empty:
            return None
        raise invalid(None, "the request body is empty; a JSON object is required")
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ApiError(400, f"the body is not valid JSON: {exc}", code="invalid_json") from exc


def json_object(raw: bytes) -> dict[str, Any]:
    return require_object(parse_json(raw))


def require_object(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        kind = "null" if body is None else type(body).__name__
        raise invalid(None, f"the body must be a JSON object, got {kind}")
    return body


def ignore_optional_body(raw: bytes) -> None:
    """A route the spec gives no body: none, or any JSON object, is accepted and ignored (the
    official SDK sends an empty body with a JSON content type); anything else is a 400."""
    body = parse_json(raw, allow_empty=True)
    if body is not None:
        require_object(body)


def refuse_undeclared_query(
    operation_id: str, declared: Collection[str], sent: Iterable[str]
) -> None:
    """400 naming the first query parameter the operation does not declare: a typo (`limt`) or
    a body field sent as a query parameter (`forward_only`) is said, never silently ignored.
    The official SDK sends only declared ones; this rule is the emulator's."""
    for name in sent:
        if name not in declared:
            takes = f"it takes {', '.join(sorted(declared))}" if declared else "it takes none"
            raise invalid(
                name,
                f"is not a query parameter of {operation_id}; {takes}",
                emulator_rule=True,
            )


def query_parameter(request: Request, operation_id: str, name: str) -> Any:
    """One query parameter, validated and coerced as the spec declares it (its default, or None,
    if absent)."""
    return validate_parameter(operation_id, name, request.query_params.getlist(name) or None)
