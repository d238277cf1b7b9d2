"""What the proxy keeps of a body while it streams past: at most ``limit`` bytes, decoded.

``Content-Encoding`` gzip and deflate are undone as the chunks arrive, never producing more than
the limit, so a small compressed answer that expands to gigabytes costs the proxy no more memory
than an ordinary one (the client still gets every byte upstream sent). What could not be kept is
said in :attr:`BodyRecorder.defects`: a body cut at the limit, a compressed stream that is not
what its header claims or that ends early (the body is then kept as it came, undecoded).
"""

from __future__ import annotations

import zlib
from typing import Any

__all__ = ["DEFAULT_RECORD_LIMIT", "BodyRecorder"]

DEFAULT_RECORD_LIMIT = 16 * 1024 * 1024
_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


class BodyRecorder:
    """``feed`` each chunk as it is forwarded, then ``finish`` for the kept body."""

    def __init__(self, encoding: str | None, limit: int = DEFAULT_RECORD_LIMIT, what: str = "body"):
        self.encoding = (encoding or "").strip().lower() or None
        self.limit = limit
        self.what = what
        self.wire_bytes = 0  # every byte that passed, kept or not
        self.defects: list[str] = []
        self._raw = bytearray()  # the first ``limit`` bytes as they came (kept if decoding fails)
        self._decoded = bytearray()
        self._cut = False
        self._decoder: Any = None  # a zlib decompressor
        self._decode_error: str | None = None
        if self.encoding in _WBITS:
            self._decoder = zlib.decompressobj(_WBITS[self.encoding])

    def feed(self, chunk: bytes) -> None:
        self.wire_bytes += len(chunk)
        if len(self._raw) < self.limit:
            self._raw += chunk[: self.limit - len(self._raw)]
        if self._decoder is None or self._decode_error or self._cut:
            return
        first = self.wire_bytes == len(chunk)
        if first and self.encoding == "deflate" and not _zlib_header(chunk):
            # "deflate" is zlib-wrapped by RFC 9110, but servers also send the raw stream
            self._decoder = zlib.decompressobj(-zlib.MAX_WBITS)
        room = self.limit - len(self._decoded)
        if room <= 0:  # (a max_length of 0 would mean no limit at all)
            self._cut = True
            return
        try:
            self._decoded += self._decoder.decompress(chunk, room)
            if self._decoder.unconsumed_tail or len(self._decoded) >= self.limit:
                self._cut = not self._decoder.eof or bool(self._decoder.unconsumed_tail)
        except zlib.error as exc:
            self._decode_error = f"{self.encoding} stream is corrupt ({exc})"

    def finish(self, *, complete: bool = True) -> bytes:
        """The kept body; ``complete``: the upstream sent the whole body (else it is known cut)."""
        if self._decoder is None:
            if self.wire_bytes > self.limit:
                self._note_cut(self.wire_bytes, "")
            return self._take(self._raw)
        if self._cut:
            self._note_cut(
                None, f"; {self.wire_bytes} {self.encoding} bytes received, the rest not decoded"
            )
            return self._take(self._decoded)
        if self._decode_error is None and not self._decoder.eof and complete and self.wire_bytes:
            self._decode_error = f"{self.encoding} stream ends before its end marker (truncated)"
        if self._decode_error is not None:
            self.defects.append(
                f"bad content-encoding: {self._decode_error}; {self.what} kept as received"
            )
            if self.wire_bytes > self.limit:
                self._note_cut(self.wire_bytes, "")
            return self._take(self._raw)
        return self._take(self._decoded)

    def _take(self, kept: bytearray) -> bytes:
        """``kept`` as bytes, the recorder's copies released (a body is held once)."""
        body = bytes(kept)
        self._decoded, self._raw = bytearray(), bytearray()
        return body

    def _note_cut(self, total: int | None, rest: str) -> None:
        size = f"of {total} bytes " if total is not None else ""
        self.defects.append(
            f"record cut: the {self.what} {size}is kept up to the record limit of "
            f"{self.limit} bytes{' (decoded)' if self._decoder is not None else ''}{rest}; "
            "the client got all of it"
        )


def _zlib_header(data: bytes) -> bool:
    return len(data) >= 2 and data[0] & 0x0F == 8 and (data[0] * 256 + data[1]) % 31 == 0
