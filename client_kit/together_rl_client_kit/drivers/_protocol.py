"""The driver side of the protocol: declare, then answer one JSON line per request line.

While the driver runs, anything the client prints goes to stderr: stdout carries protocol
lines only.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["DriverCallError", "serve_driver"]


class DriverCallError(Exception):
    """A call the client failed: ``status`` is the HTTP status it saw, or None."""

    def __init__(self, status: int | None, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def serve_driver(
    name: str,
    supports: Iterable[str],
    perform: Callable[[dict[str, Any]], Any],
    describe_error: Callable[[Exception], DriverCallError],
) -> int:
    """Run the protocol on stdin/stdout until stdin closes. ``perform(request)`` returns the
    call's JSON result or raises; ``describe_error`` turns the client's exceptions into
    the protocol's error."""
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8", buffering=1)
    sys.stdout = sys.stderr
    protocol.write(json.dumps({"driver": name, "supports": sorted(supports)}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            answer = {"id": request["id"], "ok": True, "result": perform(request)}
        except Exception as error:
            described = error if isinstance(error, DriverCallError) else describe_error(error)
            answer = {
                "id": request["id"],
                "ok": False,
                "error": {"status": described.status, "message": described.message},
            }
        protocol.write(json.dumps(answer) + "\n")
    return 0
