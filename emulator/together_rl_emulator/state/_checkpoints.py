"""Checkpoints: the two checkpoint operation kinds, resume, listing and download.

A checkpoint is one row of the `checkpoints` table, committed in the same transaction as the
operation that saved it (so a retried or re-run operation never makes a second one), holding its
API resource (`Checkpoint`) and its state as `safetensors` bytes (float64, exact):

- training: the trainer weights, the sampler weights, the Adam moments and step, the optimizer
  step and the weights version (not gradients accumulated since the last optimizer step);
- inference: the trainer weights.

A session resumed from a checkpoint takes over the checkpoint's `policy_seed`, the seed of its
lineage's initial (base) weights, so the adapter of any checkpoint of the lineage is its weights
minus those base weights. Downloads are computed from the stored state when asked for
(deterministic bytes) and served behind presigned URLs, `/_emulator/checkpoints/...?token=`.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson
import safetensors.numpy

from ..base import (
    ApiError,
    PageRequest,
    enum_value,
    float_arrays_under,
    found_or_404,
    invalid,
    not_found,
    num_experts_of,
    page_of,
)
from ..compute import (
    OperationOutcome,
    PolicyParams,
    RunContext,
    TrainerState,
    encode_output,
    init_policy,
)
from ._store import Store
from ._store_rows import CheckpointRow, NewCheckpoint, utc_now

__all__ = [
    "CHECKPOINT_FILE_ROUTE",
    "INFERENCE_CHECKPOINT",
    "TRAINING_CHECKPOINT",
    "TYPE_INFERENCE",
    "Checkpoints",
    "SavedCheckpoint",
    "resumed_state",
    "run_inference_checkpoint",
    "run_training_checkpoint",
]

TRAINING_CHECKPOINT = "training-checkpoint"
INFERENCE_CHECKPOINT = "inference-checkpoint"
TYPE_TRAINING = enum_value("CheckpointType", "TRAINING")
TYPE_INFERENCE = enum_value("CheckpointType", "INFERENCE")
VARIANT_UNSPECIFIED = enum_value("CheckpointVariant", "UNSPECIFIED")
VARIANT_MERGED = enum_value("CheckpointVariant", "MERGED")
VARIANT_ADAPTER = enum_value("CheckpointVariant", "ADAPTER")
MANIFEST = "manifest.json"
WEIGHTS_FILES = {VARIANT_MERGED: "model.safetensors", VARIANT_ADAPTER: "adapter_model.safetensors"}
CHECKPOINT_FILE_ROUTE = "/_emulator/checkpoints/{checkpoint_id}/{variant}/{filename}"


@dataclass(frozen=True)
class SavedCheckpoint(NewCheckpoint):
    """A checkpoint an operation saved: committed with the operation (`OperationRecord`)."""

    def session_entry(self) -> dict[str, Any]:
        """The `TrainingCheckpoint` / `InferenceCheckpoint` of the session and the operation."""
        entry = {k: self.resource[k] for k in ("id", "created_at", "step")}
        if self.type == TYPE_TRAINING:
            entry["registration"] = self.resource["training_registration"]
        else:
            entry["registration"] = self.resource["inference_registration"]
        return entry

    def add_to(self, session_body: dict[str, Any]) -> dict[str, Any]:
        field = "training_checkpoints" if self.type == TYPE_TRAINING else "inference_checkpoints"
        listed = [c for c in session_body.get(field, []) if c["id"] != self.id]
        return dict(session_body, **{field: [*listed, self.session_entry()]})

    def checkpoint(self) -> NewCheckpoint:
        return self

    def routed_experts(self) -> tuple[()]:
        return ()


def run_training_checkpoint(
    state: TrainerState, request: None, context: RunContext
) -> OperationOutcome:
    """The runner of `training-checkpoint`: the full training state, for resuming."""
    arrays = {
        k: a
        for k, a in state.to_arrays().items()
        if not k.startswith("grads/") and k != "accumulated_passes"
    }
    return _saved(TYPE_TRAINING, state, arrays, context)


def run_inference_checkpoint(
    state: TrainerState, request: None, context: RunContext
) -> OperationOutcome:
    """The runner of `inference-checkpoint`: the trainer weights, for serving or download."""
    arrays = {f"params/{k}": a for k, a in state.params.to_arrays().items()}
    return _saved(TYPE_INFERENCE, state, arrays, context)


def _saved(
    type_: str, state: TrainerState, arrays: dict[str, Any], context: RunContext
) -> OperationOutcome:
    """The output (`{checkpoint}`) and the checkpoint to commit with it. Its id derives from the
    operation's, so re-running the operation after a crash saves the same one."""
    checkpoint_id = f"ckpt-{context.operation_id}"
    base_model = context.session["base_model"]
    lora = bool(context.resources.get("lora_enabled"))
    registration = {"id": f"{base_model}-{checkpoint_id}", "revision_id": "1"}
    resource: dict[str, Any] = {
        "id": checkpoint_id,
        "base_model": base_model,
        "created_at": utc_now(),
        "session_id": context.session_id,
        "step": str(state.step),
        "type": type_,
    }
    if type_ == TYPE_TRAINING:
        resource["training_registration"] = registration
    else:
        # An adapter for LoRA on the base model's own weights, a merged model otherwise.
        plain_lora = lora and "base_weights_ref" not in context.resources
        resource["inference_registration"] = {"adapter" if plain_lora else "model": registration}
    rank = context.session.get("lora_config", {}).get("rank")
    if lora and rank is not None:
        resource["lora_rank"] = rank
    saved = SavedCheckpoint(
        id=checkpoint_id,
        session_id=context.session_id,
        type=type_,
        base_model=base_model,
        lora=lora,
        vocab_size=context.vocab_size,
        policy_seed=context.policy_seed,
        resource=resource,
        state=safetensors.numpy.save(dict(sorted(arrays.items()))),
    )
    output = encode_output({"checkpoint": saved.session_entry()})
    return OperationOutcome(output, None, saved)


def resumed_state(row: CheckpointRow, load_optimizer: bool | None) -> TrainerState:
    """The trainer state a session resumed from checkpoint `row` starts with."""
    arrays = safetensors.numpy.load(row.state)
    if row.type == TYPE_TRAINING and load_optimizer is not False:
        params = PolicyParams.from_arrays(float_arrays_under(arrays, "params/"))
        arrays.update({f"grads/{k}": np.zeros_like(a) for k, a in params.to_arrays().items()})
        arrays["accumulated_passes"] = np.array(0, dtype=np.int64)
        return TrainerState.from_arrays(arrays)
    return TrainerState.from_policy(PolicyParams.from_arrays(float_arrays_under(arrays, "params/")))


class Checkpoints:
    """The checkpoints endpoints, over the store's checkpoints."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def row(self, owner: str, checkpoint_id: str, param: str = "checkpoint_id") -> CheckpointRow:
        found = self.store.get_checkpoint(owner, checkpoint_id)
        return found_or_404(found, "checkpoint", param, checkpoint_id)

    def get(self, owner: str, checkpoint_id: str) -> dict[str, Any]:
        return self.row(owner, checkpoint_id).resource

    def list_page(self, owner: str, page: PageRequest, filters: dict[str, Any]) -> dict[str, Any]:
        """`filters`: `base_model`, `session_id` and `type`, each None to match any."""
        rows = self.store.list_checkpoints(owner, page.after, page.limit + 1, filters)
        return page_of(rows, page)

    # ------------------------------------------------------------------ download
    def download(
        self, owner: str, checkpoint_id: str, variant: str, base_url: str
    ) -> dict[str, Any]:
        row = self.row(owner, checkpoint_id)
        variant, files = checkpoint_files(row, variant)
        return {
            "data": [
                {
                    "filename": name,
                    "size": str(len(data)),
                    "url": _file_url(base_url, row, variant, name),
                }
                for name, data in files.items()
            ]
        }

    def file(self, checkpoint_id: str, variant: str, filename: str, token: str | None) -> bytes:
        """A file by its presigned URL (the token is the credential; no Authorization). A
        missing or wrong token is answered like a missing id (404), before the state is read."""
        stored = self.store.checkpoint_token(checkpoint_id)  # any key's: the token decides
        given = (token or "").encode()
        if stored is None or not token or not secrets.compare_digest(given, stored.encode()):
            raise not_found("checkpoint", "checkpoint_id", checkpoint_id)
        found = self.store.get_checkpoint(None, checkpoint_id)
        row = found_or_404(found, "checkpoint", "checkpoint_id", checkpoint_id)
        files = checkpoint_files(row, variant)[1] if variant in WEIGHTS_FILES else {}
        if filename not in files:
            raise ApiError(
                404, f"filename: checkpoint {checkpoint_id} has no file {filename!r}",
                type="not_found", param="filename", code="not_found",
            )  # fmt: skip
        return files[filename]


def _file_url(base_url: str, row: CheckpointRow, variant: str, filename: str) -> str:
    path = CHECKPOINT_FILE_ROUTE.format(checkpoint_id=row.id, variant=variant, filename=filename)
    return f"{base_url.rstrip('/')}{path}?token={row.token}"


def checkpoint_files(row: CheckpointRow, variant: str) -> tuple[str, dict[str, bytes]]:
    """The variant (UNSPECIFIED resolved) and its files of an inference checkpoint: the
    weights, then the manifest. Refuses (400) a training checkpoint or a variant that does not
    fit the checkpoint's resources."""
    if row.type != TYPE_INFERENCE:
        raise invalid(
            "checkpoint_id",
            f"{row.id} is a training checkpoint (the training state, for resuming a session);"
            " only inference checkpoints can be downloaded: save one with"
            " POST .../operations/inference-checkpoint",
        )
    if variant == VARIANT_UNSPECIFIED:
        variant = VARIANT_ADAPTER if row.lora else VARIANT_MERGED
    if variant == VARIANT_ADAPTER and not row.lora:
        raise invalid(
            "variant",
            f"{row.id} comes from full-weight model resources (lora_enabled false), which have"
            f" no adapter; use {VARIANT_MERGED}",
        )
    weights = float_arrays_under(safetensors.numpy.load(row.state), "params/")
    if variant == VARIANT_ADAPTER:
        experts = num_experts_of(row.base_model)
        base = init_policy(row.vocab_size, row.policy_seed, experts).to_arrays()
        weights = {k: a - base[k] for k, a in weights.items()}
    tensors = {k: np.asarray(a, dtype=np.float32) for k, a in sorted(weights.items())}
    name = WEIGHTS_FILES[variant]
    data = safetensors.numpy.save(tensors)
    manifest = {
        "checkpoint_id": row.id,
        "base_model": row.base_model,
        "step": row.resource["step"],
        "variant": variant,
        "files": [
            {"filename": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        ],
        "tensors": {k: {"dtype": "float32", "shape": list(a.shape)} for k, a in tensors.items()},
    }
    manifest_bytes = orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    return variant, {name: data, MANIFEST: manifest_bytes}
