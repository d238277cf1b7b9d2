"""The state dir is private to the user who runs the emulator: the directory 0700, the files
that hold secrets or state 0600 (the owner secret, the database and its WAL and shared-memory
files, the generated API key). A state dir created with looser modes is tightened on start."""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["PRIVATE_DIR_MODE", "PRIVATE_FILE_MODE", "private_dir", "private_file", "write_private"]

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def private_dir(path: str | Path) -> Path:
    """`path` as a directory only its owner can enter (created, or its mode tightened)."""
    root = Path(path)
    root.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    if stat.S_IMODE(root.stat().st_mode) & 0o077:
        root.chmod(PRIVATE_DIR_MODE)
    return root


def private_file(path: str | Path) -> Path:
    """`path` as a file only its owner can read and write (created empty if missing, so that
    a library that then opens it, SQLite, keeps the mode; SQLite gives its -wal and -shm files
    the database file's mode)."""
    file = Path(path)
    os.close(os.open(file, os.O_WRONLY | os.O_CREAT, PRIVATE_FILE_MODE))
    if stat.S_IMODE(file.stat().st_mode) != PRIVATE_FILE_MODE:
        file.chmod(PRIVATE_FILE_MODE)
    return file


def write_private(path: str | Path, text: str) -> None:
    """Write `text` to `path`, a private file (mode 0600 before any byte is written)."""
    file = private_file(path)
    with open(file, "w") as out:
        out.write(text)
