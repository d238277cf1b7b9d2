"""Optional numpy: the wrapper works with plain lists when numpy is not installed."""

from __future__ import annotations

from typing import Any

__all__ = ["HAVE_NUMPY", "is_array", "np"]

try:
    import numpy

    np: Any = numpy
    HAVE_NUMPY = True
except ImportError:  # pragma: no cover - exercised only without numpy
    np = None
    HAVE_NUMPY = False


def is_array(value: object) -> bool:
    """True for a numpy array (duck-typed the way the official SDK does)."""
    return HAVE_NUMPY and isinstance(value, np.ndarray)
