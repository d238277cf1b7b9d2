"""A one-line progress bar for downloads, shown only when the output is a terminal."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

__all__ = ["terminal_progress"]

BAR_WIDTH = 30


def terminal_progress(
    label: str, stream: TextIO | None = None
) -> Callable[[int, int | None], None] | None:
    """``progress(done, total)`` drawing ``label [#####.....] 42% 1.2/2.9 MB`` on ``stream``
    (stderr), or None when it is not a terminal (logs and pipes get no bar)."""
    out = stream if stream is not None else sys.stderr
    if not out.isatty():
        return None

    def progress(done: int, total: int | None) -> None:
        if total:
            filled = min(BAR_WIDTH, done * BAR_WIDTH // total)
            bar = "#" * filled + "." * (BAR_WIDTH - filled)
            line = (
                f"{label} [{bar}] {done * 100 // total:3d}% {done / 1e6:.1f}/{total / 1e6:.1f} MB"
            )
        else:
            line = f"{label} {done / 1e6:.1f} MB"
        out.write("\r" + line)
        if total is not None and done >= total:
            out.write("\n")
        out.flush()

    return progress
