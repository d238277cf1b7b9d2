"""Decode a large JSON object in short steps, so that other requests are served meanwhile.

`orjson.loads` of a 64 MB body is one call of about a second that holds the GIL: while a worker
thread runs it, the event loop answers nothing (`/healthz` included). Here simdjson parses the
text into its tape (a few tens of milliseconds), and each long top-level array (a batch's
`samples`) is turned into Python values `BATCH` items at a time, by orjson over each item's
minified text: each step is short, and the thread gives the GIL up between them.

The value is what `orjson.loads(raw)` gives (simdjson's minified text keeps every number's
kind, `3600.0` stays a float, and every key); a body it is not sure of gives None (the caller
decodes it plainly, and orjson says what is wrong): a parse error, a byte order mark, a top
level that is not an object, a repeated top-level key.
"""

from __future__ import annotations

from typing import Any

import orjson
import simdjson

__all__ = ["BATCH", "CHUNKED_DECODE_MIN_BYTES", "decode_in_chunks"]

# Smaller bodies decode in one orjson call of at most a few tens of milliseconds.
CHUNKED_DECODE_MIN_BYTES = 4 * 1024 * 1024
BATCH = 500  # items of a long array decoded per orjson call (well under a millisecond)
_BYTE_ORDER_MARK = b"\xef\xbb\xbf"
_CONTAINERS = (simdjson.Object, simdjson.Array)


def decode_in_chunks(raw: bytes) -> dict[str, Any] | None:
    """The JSON object `raw` (as `orjson.loads` reads it), or None: decode it plainly."""
    if len(raw) < CHUNKED_DECODE_MIN_BYTES or raw.startswith(_BYTE_ORDER_MARK):
        return None
    parser = simdjson.Parser()
    try:
        doc = parser.parse(raw)
        if not isinstance(doc, simdjson.Object):
            return None
        keys = list(doc.keys())
        if len(set(keys)) != len(keys):
            return None
        return {key: _value(doc[key]) for key in keys}
    except Exception:  # any doubt: orjson decodes it, and says what is wrong
        return None
    finally:
        doc = None  # no proxy outlives the parser


def _value(node: Any) -> Any:
    if isinstance(node, simdjson.Array) and len(node) > BATCH:
        items: list[Any] = []
        texts: list[bytes] = []
        for item in node:
            texts.append(_text(item))
            if len(texts) == BATCH:
                items.extend(orjson.loads(b"[" + b",".join(texts) + b"]"))
                texts.clear()
        if texts:
            items.extend(orjson.loads(b"[" + b",".join(texts) + b"]"))
        return items
    if isinstance(node, _CONTAINERS):
        return orjson.loads(_text(node))
    return node


def _text(node: Any) -> bytes:
    """The JSON text of a value (a container's minified text, from the tape)."""
    if not isinstance(node, _CONTAINERS):
        return orjson.dumps(node)
    mini = node.mini
    return mini if isinstance(mini, bytes) else mini.encode()
