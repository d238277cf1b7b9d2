"""The numpy array types the math modules share, and the flat name -> array dicts their states
are saved as (`np.savez`, safetensors), in which a prefix (`params/`, `m/`, ...) groups arrays."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

__all__ = ["F64", "I64", "float_arrays_under"]

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]


def float_arrays_under(arrays: Mapping[str, npt.ArrayLike], prefix: str) -> dict[str, F64]:
    """The arrays whose names start with `prefix`, named without it, as float64 copies."""
    return {
        name[len(prefix) :]: np.array(a, dtype=np.float64)
        for name, a in arrays.items()
        if name.startswith(prefix)
    }
