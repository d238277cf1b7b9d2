"""A long JSON array of objects (a batch's `samples`) decoded into its items' type a piece of
text at a time, with no Python object per item besides the typed item itself.

The array's text is cut after an item's closing `}` followed by `,` and the next item's `{`,
about every `PIECE_BYTES`, and each piece is decoded as a JSON array of items. A cut that is
not between two items of this array (inside a string, or between two objects nested deeper)
leaves an unterminated string or an unclosed bracket in the piece, which then fails to decode:
so a piece that decodes is exactly whole items, and a piece that does not parse is tried again
up to the next cut. When an item is refused (or no cut parses), the rest of the array is split
into its items' texts by msgspec (`msgspec.Raw`, one per item) and decoded `BATCH` items at a
time, so that the first item the types refuse is found.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec
import orjson

__all__ = ["BATCH", "PIECE_BYTES", "ArrayItems"]

PIECE_BYTES = 256 * 1024  # text decoded per msgspec call (each call holds the GIL)
BATCH = 1_000  # items per call once the array is split into its items' texts
_NEXT_ITEM = re.compile(rb"\}\s*,\s*\{")
_CUTS_TRIED = 8  # cuts tried for a piece before splitting the rest item by item

# (items of a batch, the index of the first) -> None: see `ArrayItems.decode`.
Visit = Callable[[list[Any], int], None]


@dataclass(frozen=True)
class _Piece:
    first: int  # index of its first item
    count: int
    span: tuple[int, int] | None  # its items' text in the body, or ...
    texts: list[msgspec.Raw] | None  # ... each item's text

    def text(self, raw: bytes) -> bytes:
        if self.span is not None:
            return b"[" + raw[self.span[0] : self.span[1]] + b"]"
        assert self.texts is not None
        return b"[" + b",".join(self.texts) + b"]"


class ArrayItems:
    """The array `raw[start:stop]` (its text, brackets included), decoded by `decode`."""

    def __init__(self, raw: bytes, start: int, stop: int) -> None:
        self._raw = raw
        self._start, self._end = start + 1, stop - 1  # after `[`, at `]`
        self._pieces: list[_Piece] = []
        self.count = 0  # items decoded so far

    def decode(self, item_type: Any, visit: Visit) -> int | None:
        """Decode the items in order, passing each piece's typed items to `visit`, up to the
        first item the types refuse: its index, or None when there is none. Raises
        `msgspec.DecodeError` for text that is not JSON, `orjson.JSONDecodeError` when a text
        after the refused item is one orjson refuses (the plain decoder would refuse it)."""
        decoder = msgspec.json.Decoder(list[item_type])
        pos = self._start
        while pos < self._end:
            found = self._piece(decoder, pos)
            if found is None:
                return self._decode_each(pos, item_type, visit)
            items, stop, cut = found
            self._pieces.append(_Piece(self.count, len(items), (pos, stop), None))
            visit(items, self.count)
            self.count += len(items)
            del items
            pos = cut.end() - 1 if cut else self._end
        return None

    def _piece(
        self, decoder: msgspec.json.Decoder[Any], pos: int
    ) -> tuple[list[Any], int, re.Match[bytes] | None] | None:
        """`(items, end of their text, the cut after them)` of the piece from `pos`, or None
        when an item is refused or the text is not JSON. A cut between two objects nested in an
        item (two chunks of a sample) makes text that is not JSON: the next cut is tried."""
        cut = _NEXT_ITEM.search(self._raw, pos + PIECE_BYTES, self._end)
        for _ in range(_CUTS_TRIED):
            stop = cut.start() + 1 if cut else self._end
            try:
                return decoder.decode(b"[" + self._raw[pos:stop] + b"]"), stop, cut
            except msgspec.ValidationError:
                return None
            except msgspec.DecodeError:
                if cut is None:
                    return None
                cut = _NEXT_ITEM.search(self._raw, cut.end() - 1, self._end)
        return None

    def _decode_each(self, pos: int, item_type: Any, visit: Visit) -> int | None:
        """`decode` of the rest of the array from `pos` (the start of an item), item by item."""
        texts = msgspec.json.decode(
            b"[" + self._raw[pos : self._end] + b"]", type=list[msgspec.Raw]
        )
        batch_decoder = msgspec.json.Decoder(list[item_type])
        for start in range(0, len(texts), BATCH):
            batch = texts[start : start + BATCH]
            self._pieces.append(_Piece(self.count, len(batch), None, batch))
            try:
                items = batch_decoder.decode(b"[" + b",".join(batch) + b"]")
            except msgspec.ValidationError:
                offset = _first_refused(batch, item_type, visit, self.count)
                for rest in range(start + offset + 1, len(texts), BATCH):
                    orjson.loads(b"[" + b",".join(texts[rest : rest + BATCH]) + b"]")
                return self.count + offset
            visit(items, self.count)
            self.count += len(items)
            del items
        return None

    def reached_any(self) -> bool:
        """Whether `decode` reached an item (the array is not empty)."""
        return any(piece.count for piece in self._pieces)

    def text(self, index: int) -> memoryview:
        """Item `index`'s JSON text (an item `decode` reached)."""
        at = bisect.bisect_right([piece.first for piece in self._pieces], index) - 1
        piece = self._pieces[at]
        if piece.texts is not None:
            return memoryview(piece.texts[index - piece.first])
        texts = msgspec.json.decode(piece.text(self._raw), type=list[msgspec.Raw])
        return memoryview(texts[index - piece.first])

    def release(self) -> None:
        """Free the items' texts a batch at a time (one go would hold the GIL a long while)."""
        while self._pieces:
            del self._pieces[-10:]


def _first_refused(batch: list[msgspec.Raw], item_type: Any, visit: Visit, first: int) -> int:
    """The offset in `batch` of its first item the types refuse (the items before it are
    passed to `visit`)."""
    decoder = msgspec.json.Decoder(item_type)
    items: list[Any] = []
    for offset, text in enumerate(batch):
        try:
            items.append(decoder.decode(text))
        except msgspec.ValidationError:
            visit(items, first)
            return offset
    raise msgspec.DecodeError("a batch refused, no item of it")
