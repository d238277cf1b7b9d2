"""The installed copy of the document."""

from __future__ import annotations

import functools
import importlib.resources

__all__ = ["SPEC_FILE", "spec_bytes"]

#: The document's file name inside this package (and the emulator's route: `GET /openapi.yaml`).
SPEC_FILE = "openapi.yaml"


@functools.cache
def spec_bytes() -> bytes:
    """The installed `openapi.yaml`, byte for byte (read once)."""
    return (importlib.resources.files("together_rl_spec") / SPEC_FILE).read_bytes()
