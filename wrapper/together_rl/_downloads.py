"""Where downloaded checkpoint files go (a bare file name inside the chosen folder, never
elsewhere), and a one-line progress bar, shown only when the output is a terminal."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from ._errors import InvalidRequestError

__all__ = ["checkpoint_file_path", "terminal_progress"]

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
        line = f"{label} {done / 1e6:.1f}"
        if total:
            filled = min(BAR_WIDTH, done * BAR_WIDTH // total)
            bar = "#" * filled + "." * (BAR_WIDTH - filled)
            line = f"{label} [{bar}] {done * 100 // total:3d}% {done / 1e6:.1f}/{total / 1e6:.1f}"
        out.write(f"\r{line} MB" + ("\n" if total is not None and done >= total else ""))
        out.flush()

    return progress


def checkpoint_file_path(folder: Path, filename: str) -> Path:
    """Where a downloaded file goes: a bare file name inside ``folder`` (a name with a
    directory part could write anywhere, so it is refused)."""
    if not filename or Path(filename).name != filename or filename in (".", ".."):
        raise InvalidRequestError(f"unsafe checkpoint file name {filename!r}", field="filename")
    return folder / filename
