"""The large-payload protocol of the official SDK's hand-written layer (docs/wire-facts.md §2.6,
docs/wrapper.md "Large payloads"), without I/O: when a request body is uploaded, the stand-in
body POSTed in its place, and how an offloaded result is merged back."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ._errors import InvalidRequestError, MalformedResponseError
from ._http import RequestSpec
from ._schema import all_of_type

__all__ = [
    "MAX_UPLOAD_BYTES",
    "download_request",
    "merge_offloaded",
    "needs_upload",
    "shrink_body",
    "upload_request",
]

#: the official SDK refuses bodies above 4.995 GiB
MAX_UPLOAD_BYTES = int(4.995 * 1024**3)
STAND_IN_LENGTH = 8
_DROPPED_KEYS = frozenset({"shape", "sparse_crow_indices", "sparse_col_indices"})


def needs_upload(size: int, threshold: int | None) -> bool:
    """Whether a body of ``size`` bytes goes through the upload protocol."""
    if size > MAX_UPLOAD_BYTES:
        raise InvalidRequestError(
            f"the request body is {size} bytes; the limit is {MAX_UPLOAD_BYTES} bytes"
        )
    return threshold is not None and size > threshold


def _shrink(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value[:STAND_IN_LENGTH].tolist()
    if isinstance(value, Mapping):
        if isinstance(value.get("chunks"), list):
            return _shrink_model_input(value)
        return {k: _shrink(v) for k, v in value.items() if k not in _DROPPED_KEYS}
    if not isinstance(value, list):
        return value
    if value and all_of_type(value, (int, float)):  # a numeric array
        return value[:STAND_IN_LENGTH]
    return [_shrink(v) for v in value]


def _shrink_model_input(model_input: Mapping[str, Any]) -> dict[str, Any]:
    """The chunks of one model input share a single budget of 8 tokens (at least one chunk
    with one token is kept, so the stand-in stays a valid ``ModelInput``)."""
    budget = STAND_IN_LENGTH
    chunks = []
    for chunk in model_input["chunks"]:
        encoded = chunk.get("encoded_text") if isinstance(chunk, Mapping) else None
        if not isinstance(encoded, Mapping) or encoded.get("tokens") is None:
            chunks.append(_shrink(chunk))
            continue
        if budget <= 0 and chunks:
            break
        kept = list(encoded["tokens"][: max(budget, 1)])
        budget -= len(kept)
        chunks.append({**chunk, "encoded_text": {**encoded, "tokens": kept}})
    rest = {k: _shrink(v) for k, v in model_input.items() if k != "chunks"}
    return {**rest, "chunks": chunks}


def shrink_body(body: Mapping[str, Any], payload_id: str) -> dict[str, Any]:
    """The stand-in POSTed with an uploaded body: every numeric array cut to its first 8
    elements, ``shape``/``sparse_*`` removed, 8 tokens per model input, the rest (loss, flags,
    sampling parameters) unchanged, plus ``payload_id``."""
    return {**{k: _shrink(v) for k, v in body.items()}, "payload_id": payload_id}


def merge_offloaded(output: Mapping[str, Any], downloaded: Any) -> dict[str, Any]:
    """The full output: the downloaded object over the inline fields, without ``payload_id``."""
    if not isinstance(downloaded, Mapping):
        raise MalformedResponseError(
            "the offloaded result is not a JSON object", body=str(downloaded)[:200]
        )
    merged = {**output, **downloaded}
    merged.pop("payload_id", None)
    return merged


def upload_request(upload_url: str, content: bytes) -> RequestSpec:
    """The PUT of a body to its presigned URL, without ``Authorization``."""
    headers = {"Content-Type": "application/json"}
    return RequestSpec(
        "PUT", upload_url, "PUT <upload_url>", headers=headers, content=content, authenticated=False
    )


def download_request(download_url: str) -> RequestSpec:
    """The GET of a presigned URL, without ``Authorization``."""
    return RequestSpec("GET", download_url, "GET <download_url>", authenticated=False)
