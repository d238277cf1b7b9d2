"""What the emulator keeps: the store (SQLite + array files), idempotency, large payloads
and checkpoints."""

from __future__ import annotations

from ._checkpoints import (
    CHECKPOINT_FILE_ROUTE,
    INFERENCE_CHECKPOINT,
    TRAINING_CHECKPOINT,
    TYPE_INFERENCE,
    Checkpoints,
    resumed_state,
    run_inference_checkpoint,
    run_training_checkpoint,
)
from ._idempotency import (
    IdempotencyGate,
    Replay,
    body_digest,
)
from ._payloads import (
    PAYLOAD_ROUTE,
    effective_body,
    new_token,
    offload,
    payload_url,
)
from ._store import Store
from ._store_database import DB_FILE
from ._store_rows import (
    PAYLOAD_UPLOAD,
    NewOperation,
    OperationRow,
    PayloadRow,
    SessionNotRunning,
    SessionRow,
    utc_now,
)

__all__ = [
    "CHECKPOINT_FILE_ROUTE",
    "DB_FILE",
    "INFERENCE_CHECKPOINT",
    "PAYLOAD_ROUTE",
    "PAYLOAD_UPLOAD",
    "TRAINING_CHECKPOINT",
    "TYPE_INFERENCE",
    "Checkpoints",
    "IdempotencyGate",
    "NewOperation",
    "OperationRow",
    "PayloadRow",
    "Replay",
    "SessionNotRunning",
    "SessionRow",
    "Store",
    "body_digest",
    "effective_body",
    "new_token",
    "offload",
    "payload_url",
    "resumed_state",
    "run_inference_checkpoint",
    "run_training_checkpoint",
    "utc_now",
]
