"""The API description, shipped once in the installed tree.

`openapi.yaml` beside this module is the only copy of the spec a wheel holds (in a checkout, a
link to `spec/openapi.yaml`). Every package that reads the document (the emulator, the contract
suite and its proxy, the client kit) gets its bytes from :func:`spec_bytes`; how each one parses
and judges them stays its own. `python -m together_rl_spec` writes the document to stdout, for
a port's build that needs it as a file.
"""

from __future__ import annotations

import functools
import importlib.resources

__all__ = ["SPEC_FILE", "spec_bytes"]

#: The document's file name inside this package (and the emulator's route: `GET /openapi.yaml`).
SPEC_FILE = "openapi.yaml"


@functools.cache
def spec_bytes() -> bytes:
    """The installed `openapi.yaml`, byte for byte (read once)."""
    return (importlib.resources.files(__name__) / SPEC_FILE).read_bytes()
