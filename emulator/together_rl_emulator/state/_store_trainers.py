"""The store's trainer states: each session's, cached, else read from its array files, else
initialised from its seed; and the clean-up of array files no row points to."""

from __future__ import annotations

import numpy as np

from ..base import num_experts_of
from ..compute import PolicyParams, TrainerState, init_policy
from ._store_arrays import versioned_files
from ._store_operations import OperationTables
from ._store_rows import SessionRow

__all__ = ["TrainerStates"]


class TrainerStates(OperationTables):
    """Trainer states and their array files, on top of sessions and operations."""

    # ------------------------------------------------------------------ arrays
    def trainer(self, session: SessionRow) -> TrainerState:
        """The session's trainer state: cached, else loaded from its files, else initialised by
        seed. Never modified: operations change a `fork()` of it and commit that."""
        with self.lock:
            cached = self._trainers.get(session.id)
            if cached is not None:
                return cached
            current = self.get_session(None, session.id) or session
            state = TrainerState.from_policy(self._initial_policy(current))
            if self.files is not None and current.trainer_version > 0:
                arrays = self.files.read(current.id, f"trainer-{current.trainer_version}")
                if arrays is None:
                    raise RuntimeError(f"trainer-{current.trainer_version} of {current.id} missing")
                arrays.update({f"grads/{k}": g for k, g in state.grads.items()})
                arrays["accumulated_passes"] = np.array(0.0)
                state = TrainerState.from_arrays(arrays)
            if self.files is not None and current.accumulated_passes > 0:
                stored = self.files.read(current.id, f"grads-{current.grads_version}")
                if stored is None:
                    raise RuntimeError(f"grads-{current.grads_version} of {current.id} missing")
                state.grads = stored
            state.accumulated_passes = current.accumulated_passes
            self._trainers[session.id] = state
            return state

    def _initial_policy(self, session: SessionRow) -> PolicyParams:
        arrays = self.files.read(session.id, "policy") if self.files is not None else None
        if arrays is not None:
            return PolicyParams.from_arrays(arrays)
        experts = num_experts_of(str(session.body.get("base_model", "")))
        params = init_policy(session.vocab_size, session.policy_seed, experts)
        if self.files is not None:
            self.files.write(session.id, "policy", params.to_arrays())
        return params

    def clean_stale_files(self) -> None:
        """After a restart: drop array files no committed row points to."""
        if self.files is None:
            return
        with self.lock:
            rows = self._db.execute(
                "SELECT id, accumulated_passes, grads_version, trainer_version FROM sessions"
            ).fetchall()
        for row in rows:
            keep = versioned_files(
                row["accumulated_passes"], row["grads_version"], row["trainer_version"]
            )
            self.files.remove_stale(row["id"], keep)
