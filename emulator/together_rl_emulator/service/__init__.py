"""The emulator's service: the operation-kind registry, the service the routes call,
the per-session worker and model resources."""

from __future__ import annotations

from ._kinds import (
    KINDS,
    kind_named,
)
from ._service import EmulatorService
from ._worker import OperationWorker

__all__ = ["KINDS", "EmulatorService", "OperationWorker", "kind_named"]
