"""Presigned-URL transfers without I/O: the official SDK's large-payload protocol (wire-facts.md
§2.6: upload, stand-in, merge of an offloaded result); checkpoint files' paths, a progress bar."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from ._errors import InvalidRequestError, MalformedResponseError
from ._http import RequestSpec
from ._schema import all_of_type

__all__ = [
    "checkpoint_file_path",
    "download_request",
    "merge_offloaded",
    "needs_upload",
    "shrink_body",
    "terminal_progress",
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
    """Its chunks share 8 tokens (one at least, so the stand-in stays a valid ``ModelInput``)."""
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
    """An uploaded body's stand-in: arrays cut to 8 elements, ``shape`` dropped, ``payload_id``."""
    return {**{k: _shrink(v) for k, v in body.items()}, "payload_id": payload_id}


def merge_offloaded(output: Mapping[str, Any], downloaded: Any) -> dict[str, Any]:
    """The downloaded object over the inline fields, without ``payload_id``."""
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


BAR_WIDTH = 30


def terminal_progress(
    label: str, stream: TextIO | None = None
) -> Callable[[int, int | None], None] | None:
    """``progress(done, total)`` drawing ``label [####....] 42% 1.2/2.9 MB`` on a terminal."""
    out = stream if stream is not None else sys.stderr
    if not out.isatty():
        return None

    def progress(done: int, total: int | None) -> None:
        line = f"{label} {done / 1e6:.1f}"
        if total:
            filled = min(BAR_WIDTH, done * BAR_WIDTH // total)
            bar = "#" * filled + "." * (BAR_WIDTH - filled)
            line = f"{label} [{bar}] {done * 100 // total:3d}% {done / 1e6:.1f}/{total / 1e6:.1f}"
        out.write(f"\r{line} MB" + ("\n" if total is not None and done >= total else ""))
        out.flush()

    return progress


def checkpoint_file_path(folder: Path, filename: str) -> Path:
    """A bare file name inside ``folder`` (one with a directory part could write anywhere)."""
    if not filename or Path(filename).name != filename or filename in (".", ".."):
        raise InvalidRequestError(f"unsafe checkpoint file name {filename!r}", field="filename")
    return folder / filename
