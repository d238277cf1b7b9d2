"""The numpy half of the store: atomic `.npz` files under `<state dir>/arrays/<session id>/`, and
which of them a session row keeps in force."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..base import F64
from ..compute import TrainerState

__all__ = ["ArrayFiles", "trainer_file", "versioned_files"]


class ArrayFiles:
    """Atomic `.npz` files under `<state dir>/arrays/<session id>/`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def session_dir(self, session_id: str) -> Path:
        return self.root / session_id

    def write(self, session_id: str, name: str, arrays: Mapping[str, npt.NDArray[Any]]) -> None:
        folder = self.session_dir(session_id)
        folder.mkdir(parents=True, exist_ok=True)
        final = folder / f"{name}.npz"
        tmp = folder / f".{name}.{uuid.uuid4().hex}.tmp"
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)  # type: ignore[arg-type]
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, final)
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    def read(self, session_id: str, name: str) -> dict[str, F64] | None:
        path = self.session_dir(session_id) / f"{name}.npz"
        if not path.exists():
            return None
        with np.load(path) as data:
            return {k: np.array(data[k], dtype=np.float64) for k in data.files}

    def remove(self, session_id: str, name: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            (self.session_dir(session_id) / f"{name}.npz").unlink()

    def remove_stale(self, session_id: str, keep: set[str]) -> None:
        """Delete versioned files (`grads-*`, `trainer-*`) not named in `keep` (names without
        `.npz`), and leftover temporary files."""
        folder = self.session_dir(session_id)
        if not folder.exists():
            return
        for path in folder.iterdir():
            versioned = path.name.startswith(("grads-", "trainer-"))
            stale = versioned and path.name.removesuffix(".npz") not in keep
            if stale or path.name.endswith(".tmp"):
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()


def trainer_file(state: TrainerState) -> dict[str, npt.NDArray[Any]]:
    arrays = state.to_arrays()
    return {
        k: a for k, a in arrays.items() if not k.startswith("grads/") and k != "accumulated_passes"
    }


def versioned_files(passes: int, grads_version: int, trainer_version: int) -> set[str]:
    keep = {f"trainer-{trainer_version}"} if trainer_version > 0 else set()
    if passes > 0:
        keep.add(f"grads-{grads_version}")
    return keep
