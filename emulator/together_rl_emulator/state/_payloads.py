"""The official SDK's large-payload protocol (docs/wire-facts.md, large payloads), emulator side.

Requests: the SDK PUTs a body over 0.5 MiB to a presigned `upload_url` (here
`PUT /_emulator/payloads/{id}?token=...`, no Authorization) and POSTs the operation with a shrunk
stand-in body plus `payload_id`. `effective_body` rebuilds the body the client meant: the inline
members (the SDK keeps flags such as `forward_only` there) overridden by the uploaded ones.

Results: a completed output whose large member (`loss_fn_outputs`, sample `results`) serialises to
more than 0.5 MiB keeps its small members inline and carries `payload_id`; the offloaded member is
fetched through `POST .../payloads/{id}/download-url` and `GET /_emulator/payloads/{id}?token=...`.
"""

from __future__ import annotations

import secrets
import uuid
from typing import Any

import orjson
from together_rl_spec import upload_threshold_bytes

from ..base import ApiError, invalid
from ..checking import DecodedBody, decode_body, extend_scan
from ._store_rows import ResultPayload

__all__ = [
    "LARGE_PAYLOAD_BYTES",
    "PAYLOAD_ROUTE",
    "effective_body",
    "new_token",
    "offload",
    "payload_url",
]

#: Bodies and outputs whose compact JSON is longer go through the upload protocol (the spec's
#: `x-upload-threshold-bytes`).
LARGE_PAYLOAD_BYTES = upload_threshold_bytes()
PAYLOAD_ROUTE = "/_emulator/payloads/{payload_id}"


def new_token() -> str:
    return secrets.token_urlsafe(24)


def payload_url(base_url: str, payload_id: str, token: str) -> str:
    """The absolute presigned URL of a payload; `base_url` is the request's (ends with '/')."""
    return f"{base_url.rstrip('/')}/_emulator/payloads/{payload_id}?token={token}"


def effective_body(
    inline: dict[str, Any], uploaded: bytes | None, *, fast: bool = False
) -> DecodedBody:
    """The inline body without `payload_id`, overridden member by member by the uploaded one
    (decoded by `decode_fast` when `fast` and it can, else by orjson), with its scan."""
    if uploaded is None:
        raise invalid(
            "payload_id",
            "nothing was uploaded for this payload yet; PUT the full body to its upload_url first",
        )
    decoded = decode_body(uploaded, _parse_uploaded, fast=fast)
    full = decoded.value
    if not isinstance(full, dict):
        raise invalid("payload_id", "the uploaded payload must be a JSON object")
    merged = {k: v for k, v in inline.items() if k != "payload_id"}
    merged.update((k, v) for k, v in full.items() if k != "payload_id")
    return DecodedBody(merged, extend_scan(merged, decoded.scan))


def _parse_uploaded(uploaded: bytes) -> Any:
    try:
        return orjson.loads(uploaded)
    except orjson.JSONDecodeError as exc:
        raise ApiError(
            400, f"payload_id: the uploaded payload is not valid JSON: {exc}",
            param="payload_id", code="invalid_json",
        ) from exc  # fmt: skip


def offload(output: bytes, member: str, *, keep_empty: bool) -> tuple[bytes, ResultPayload | None]:
    """Split `member` out of the encoded `output` when it is larger than 0.5 MiB.

    Returns the output to store inline (with `payload_id`, and `member: []` if `keep_empty`, for
    a required member) and the payload to store, or `(output, None)` when it stays inline.
    """
    if len(output) <= LARGE_PAYLOAD_BYTES:
        return output, None
    parsed = orjson.loads(output)
    large = orjson.dumps({member: parsed.pop(member, [])})
    if len(large) <= LARGE_PAYLOAD_BYTES:
        return output, None
    payload = ResultPayload(id=f"payload-{uuid.uuid4()}", token=new_token(), body=large)
    if keep_empty:
        parsed[member] = []
    parsed["payload_id"] = payload.id
    return orjson.dumps(parsed), payload
