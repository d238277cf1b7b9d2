"""Training sessions: start (fresh or resumed from a checkpoint), read, list, update, stop, and
their counters for `/_emulator/stats`.

A session takes its place on READY model resources under their session cap (`ModelResources`),
and its policy seed from the emulator's seed and the key's session count, or from the
checkpoint it resumes, so a run is reproducible. Another owner's session is reported exactly
like a missing one (404).
"""

from __future__ import annotations

import uuid
from typing import Any

from ..base import (
    CATALOG,
    SESSION_RUNNING,
    PageRequest,
    empty_page,
    found_or_404,
    invalid,
    page_of,
    unknown_cursor,
)
from ..checking import default_sampler_settings, validate_schema
from ..compute import Sampler, TrainerState, derived_seed, global_norm, session_fields
from ..state import TYPE_INFERENCE, Checkpoints, SessionRow, Store, resumed_state, utc_now
from ._model_resources import ModelResources
from ._worker import OperationWorker

__all__ = ["TrainingSessions"]


class TrainingSessions:
    def __init__(
        self,
        store: Store,
        worker: OperationWorker,
        model_resources: ModelResources,
        checkpoints: Checkpoints,
        seed: int,
    ) -> None:
        self.store = store
        self.worker = worker
        self.model_resources = model_resources
        self.checkpoints = checkpoints
        self.seed = seed

    def start(self, owner: str, body: Any) -> dict[str, Any]:
        validate_schema("SessionCreate", body)
        assert isinstance(body, dict)
        resources = self.model_resources.get(owner, body["model_resources_id"])
        model = CATALOG[resources["base_model"]]
        initial, lineage_seed = self._resumed_state(owner, body, model.name)
        now = utc_now()
        session: dict[str, Any] = {
            "id": f"sess-{uuid.uuid4()}",
            "base_model": model.name,
            "created_at": now,
            "created_by": owner,
            "inference_checkpoints": [],
            "training_checkpoints": [],
            "metadata": body.get("metadata", {}),
            "model_resources_id": resources["id"],
            # int64 fields as decimal strings, as gRPC-gateway emits them (the spec allows both).
            "policy_state": {
                "applied_weights_version": "0",
                "pending_publish": False,
                "target_weights_version": "0",
                "trainer_step": "0",
            },
            "status": SESSION_RUNNING,
            "step": "0",
            "updated_at": now,
        }
        for optional in ("display_name", "lora_config", "resume_from_checkpoint_id"):
            if optional in body:
                session[optional] = body[optional]
        if initial is not None:
            session.update(session_fields(initial))
        # The cap check, the ordinal and the insert must not interleave with another create.
        with self.store.lock:
            self.model_resources.admit_session(owner, resources)
            ordinal = self.store.next_session_ordinal()
            # The n-th session of this key: other keys' sessions do not move it.
            nth = self.store.owner_session_count(owner) + 1
            seed = derived_seed(self.seed, nth) if lineage_seed is None else lineage_seed
            row = self.store.create_session(
                owner, ordinal, model.vocab_size, seed, session, initial
            )
        self.model_resources.touch(resources["id"])
        if self.worker.timing.mode == "realistic":
            self._load(row)
        return row.body

    def _load(self, row: SessionRow) -> None:
        """Build a starting session's trainer state and its sampler (default settings) now, as
        a real session loads its model when it starts: with realistic timing its first operation
        then takes its GPU-model time, not that plus the emulator's set-up (a sampler's first
        preparation over 151,936 tokens takes 50-190 ms of CPU, a first sample's realistic
        time on Qwen3-8B 105 ms)."""
        state = self.store.trainer(row)
        Sampler.shared(state.sampler_params, *default_sampler_settings()).prepare_all()

    def _resumed_state(
        self, owner: str, body: dict[str, Any], base_model: str
    ) -> tuple[TrainerState | None, int | None]:
        """The trainer state and base-weights seed a resumed session starts from (None, None
        for a fresh session)."""
        checkpoint_id = body.get("resume_from_checkpoint_id")
        if checkpoint_id is None:
            return None, None
        row = self.checkpoints.row(owner, checkpoint_id, "resume_from_checkpoint_id")
        if row.base_model != base_model:
            raise invalid(
                "resume_from_checkpoint_id",
                f"{checkpoint_id} was trained from {row.base_model}, but the model resources"
                f" serve {base_model}; resume on resources of {row.base_model}",
            )
        load_optimizer = body.get("load_optimizer")
        if row.type == TYPE_INFERENCE and load_optimizer is True:
            raise invalid(
                "load_optimizer",
                f"{checkpoint_id} is an inference checkpoint: it holds the weights only, no"
                " optimizer state; omit load_optimizer or set it to false, or resume from a"
                " training checkpoint",
            )
        return resumed_state(row, load_optimizer), row.policy_seed

    def update(self, owner: str, session_id: str, body: Any) -> dict[str, Any]:
        """PATCH: `display_name` and `metadata` fields set, or removed by an empty string."""
        validate_schema("SessionUpdate", body)
        assert isinstance(body, dict)
        with self.store.lock:
            session = dict(self.check(owner, session_id).body)
            if "display_name" in body:
                session.pop("display_name", None)
                if body["display_name"]:
                    session["display_name"] = body["display_name"]
            if "metadata" in body:
                current = session.get("metadata", {})
                session["metadata"] = _merged_metadata(current, body["metadata"])
            session["updated_at"] = utc_now()
            self.store.update_session_body(session_id, session)
        return session

    def check(self, owner: str, session_id: str) -> SessionRow:
        """The caller's session (404 if missing or another key's)."""
        found = self.store.get_session(owner, session_id)
        return found_or_404(found, "training session", "session_id", session_id)

    def get(self, owner: str, session_id: str) -> dict[str, Any]:
        return self.check(owner, session_id).body

    def list_page(
        self,
        owner: str,
        page: PageRequest,
        status: list[str] | None,
        created_by: str | None,
        model_resources_id: str | None,
    ) -> dict[str, Any]:
        if created_by not in (None, "me", owner):
            return empty_page(page)  # every session a key can see was created by that key
        before: int | None = None
        if page.after:
            cursor = self.store.get_session(owner, page.after)
            if cursor is None:
                raise unknown_cursor(page.after)
            before = cursor.ordinal
        rows = self.store.list_sessions(owner, before, status, page.limit + 1, model_resources_id)
        return page_of([r.body for r in rows], page)

    def stop(self, owner: str, session_id: str) -> dict[str, Any]:
        stopped = found_or_404(
            self.store.stop_session(owner, session_id), "training session", "session_id", session_id
        )
        self.worker.wake()
        return stopped.body

    def stats(self, owner: str) -> dict[str, dict[str, Any]]:
        """Per session of `owner`: its status, step, weights version and accumulated passes."""
        out: dict[str, dict[str, Any]] = {}
        for row in self.store.sessions_of(owner):
            norm, step, version = 0.0, 0, 0
            if row.accumulated_passes or row.trainer_version:  # else: the initial state
                state = self.store.trainer(row)
                norm = global_norm(state.grads)
                step, version = state.step, state.weights_version
            out[row.id] = {
                "accumulated_passes": row.accumulated_passes,
                "accumulated_grad_norm": norm,
                "status": row.status,
                "step": step,
                "weights_version": version,
            }
        return out


def _merged_metadata(current: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """`current` with each string of `change` set, or removed when empty (nested objects merged
    the same way; an object left empty is removed)."""
    merged = dict(current)
    for key, value in change.items():
        if isinstance(value, dict):
            inner = _merged_metadata(merged.get(key, {}), value)
            if inner:
                merged[key] = inner
            else:
                merged.pop(key, None)
        elif value == "":
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged
