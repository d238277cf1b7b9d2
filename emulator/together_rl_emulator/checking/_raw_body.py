"""A large request body kept as its bytes until something needs it decoded.

The typed decoder (`_typed_requests.py`) validates a batch of many short samples without making
a dict; the plain decode (`decode_body`) is then needed only for what must see the body as
JSON values: the idempotency digest (a known key, or a request that passed validation), the
stored request, an uploaded body's merge, and every body the typed decoder is unsure of. A body
refused by the typed decoder is therefore never decoded plainly nor digested.

`RawBody` answers as `DecodedBody` does (`value`, `scan`, `plain()`, `encoded()`,
`validated()`, `has_member()`), decoding on first use; `lazy_digest` tells the service to
digest it only when needed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import msgspec
import orjson

from ..base import ApiError
from ._body_scan import BodyScan
from ._fast_decode import DecodedBody, Validator, decode_body

__all__ = ["RawBody", "TypedValidator"]

# (the body's bytes, the session's vocabulary size, the body decoded plainly when needed) -> the
# validated request, or None when the typed decoder is unsure (validate plainly); raises the
# plain path's ApiError 400.
TypedValidator = Callable[[bytes, int, Callable[[], Any]], Any]


class RawBody:
    lazy_digest = True

    def __init__(
        self,
        raw: bytes,
        parse: Callable[[bytes], Any],
        *,
        fast: bool,
        typed: TypedValidator,
    ) -> None:
        self._raw = raw
        self._parse = parse
        self._fast = fast
        self._typed = typed

    @functools.cached_property
    def decoded(self) -> DecodedBody:
        """The body decoded as the plain path does (its errors too)."""
        return decode_body(self._raw, self._parse, fast=self._fast)

    @property
    def value(self) -> Any:
        return self.decoded.value

    @property
    def scan(self) -> BodyScan:
        return self.decoded.scan

    def plain(self) -> Any:
        return self.decoded.plain()

    def encoded(self) -> bytes:
        return self.decoded.encoded()

    def has_member(self, name: str) -> bool:
        """Whether the JSON object has the top-level member `name`."""
        if self._raw.find(orjson.dumps(name)) < 0 and self._raw.find(b"\\") < 0:
            return False  # neither the key nor an escape that could spell it
        try:
            return name in msgspec.json.decode(self._raw, type=dict[str, msgspec.Raw])
        except (msgspec.DecodeError, msgspec.ValidationError):
            return self.decoded.has_member(name)  # the plain decoder says what is wrong

    def validated(self, validate: Validator, vocab_size: int) -> Any:
        """The typed decoder's request when it is sure, else the plain path's."""
        try:
            request = self._typed(self._raw, vocab_size, self.plain)
        except ApiError:
            raise
        except Exception:  # a case the typed decoder did not foresee: never a 5xx
            request = None
        if request is not None:
            return request
        return self.decoded.validated(validate, vocab_size)
