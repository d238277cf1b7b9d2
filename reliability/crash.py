"""Crash loop: kill -9 the emulator (a subprocess with --state-dir) at random points while the
wrapper streams forward-backward submissions, optimizer steps, weights-syncs and training
checkpoints; restart it on the same port and state dir each time.

The wrapper's retries carry the stream over each restart (its per-call deadline, `call_timeout`,
covers a restart by far). Afterwards the state dir is read directly (`Store` on the same files,
emulator stopped): exactly the submitted number of operations and idempotency records of each
kind, none unfinished, and each session's weights, sampler weights, Adam moments, step, weights
version, accumulated passes and gradients compared with a fault-free run.
"""

from __future__ import annotations

import random
import sqlite3
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import together_rl
from together_rl_contract_tests.harness import EmulatorProcess
from together_rl_emulator.state import DB_FILE, Store

from ._workload import (
    OPTIM_EVERY,
    SYNC_EVERY,
    Comparison,
    compare,
    count_by_kind,
    reference_run,
    run_stream,
    store_session_states,
    stream,
)

CRASH_KEY = "crash-key"
# Connection refused while the emulator restarts: retry every 50 ms growing to 1 s, for as long as
# 300 s per call. (Defaults: 8 retries of 0.25 s..8 s, ~30 s in all, also enough for a restart.)
CRASH_RETRY = together_rl.RetryPolicy(
    max_retries=1000, initial_backoff=0.05, max_backoff=1.0, call_timeout=300.0
)


@dataclass
class CrashReport:
    submissions: int  # forward-backward submissions
    sessions: int
    kills: int
    restarts: int
    kill_points: list[int]  # operations (all kinds) acknowledged when each kill happened
    expected_operations: dict[str, int]  # per kind: what the stream submitted
    operations_stored: dict[str, int]  # per kind, read from the state dir
    idempotency_records: dict[str, int]
    unfinished_operations: int  # not COMPLETED (pending, running or failed)
    accumulated_passes: list[int]
    expected_passes: list[int]
    steps: list[int]
    expected_steps: list[int]
    results_returned: dict[str, int]
    errors: list[str]
    comparison: Comparison
    duration_s: float

    @property
    def ok(self) -> bool:
        return (
            not self.errors
            and self.kills > 0
            and self.operations_stored == self.expected_operations
            and self.idempotency_records == self.expected_operations
            and self.unfinished_operations == 0
            and self.accumulated_passes == self.expected_passes
            and self.steps == self.expected_steps
            and self.results_returned == self.expected_operations
            and self.comparison.identical
        )


def _count_by_kind(db: sqlite3.Connection, table: str, kinds: dict[str, int]) -> dict[str, int]:
    rows = dict(db.execute(f"SELECT kind, COUNT(*) FROM {table} GROUP BY kind").fetchall())
    extra = {k: v for k, v in rows.items() if k not in kinds}
    return {**{k: int(rows.get(k, 0)) for k in kinds}, **extra}


def run_crash_loop(
    n_submissions: int = 400,
    n_sessions: int = 2,
    kills: int = 10,
    seed: int = 11,
    state_dir: Path | None = None,
    max_jitter_s: float = 0.05,
    optim_every: int = OPTIM_EVERY,
    sync_every: int = SYNC_EVERY,
) -> CrashReport:
    """Kill points are drawn at random among the acknowledged-operation counts (so every kill
    lands inside the stream), plus a random 0..`max_jitter_s` delay, so kills hit a POST being
    processed, an operation being computed or its files being written, or a poll."""
    started = time.monotonic()
    steps = stream(n_submissions, n_sessions, optim_every, sync_every)
    expected = count_by_kind(steps)
    ref_states, ref_outcome = reference_run(steps, n_sessions, seed)
    with tempfile.TemporaryDirectory(prefix="crash-") as tmp:
        root = state_dir or Path(tmp)
        server = EmulatorProcess(api_keys=[CRASH_KEY], state_dir=root, seed=0)
        server.start()
        acknowledged = [0]
        kill_points: list[int] = []
        done = threading.Event()
        rng = random.Random(seed)
        planned = sorted(rng.sample(range(1, len(steps)), kills))

        def killer() -> None:
            for point in planned:
                while acknowledged[0] < point and not done.wait(0.002):
                    pass
                if done.wait(rng.uniform(0.0, max_jitter_s)):
                    return
                kill_points.append(acknowledged[0])
                server.kill9()
                server.start()

        lock = threading.Lock()

        def on_submitted(_step: object) -> None:
            with lock:
                acknowledged[0] += 1

        thread = threading.Thread(target=killer, name="crash-killer")
        try:
            thread.start()
            session_ids, outcome = run_stream(
                lambda: together_rl.Client(
                    api_key=CRASH_KEY, base_url=server.base_url, retry_policy=CRASH_RETRY
                ),
                steps,
                n_sessions,
                seed,
                on_submitted,
            )
        finally:
            done.set()
            thread.join()
            server.stop()
        db = sqlite3.connect(str(root / DB_FILE))
        try:
            operations = _count_by_kind(db, "operations", expected)
            records = _count_by_kind(db, "idempotency", expected)
            unfinished = db.execute(  # pending, running or failed
                "SELECT COUNT(*) FROM operations WHERE status != ?",
                ("TRAINING_OPERATION_STATUS_COMPLETED",),
            ).fetchone()[0]
        finally:
            db.close()
        store = Store(root)
        try:
            states = store_session_states(store, session_ids)
        finally:
            store.close()
    return CrashReport(
        submissions=n_submissions,
        sessions=n_sessions,
        kills=len(kill_points),
        restarts=server.starts - 1,
        kill_points=kill_points,
        expected_operations=expected,
        operations_stored=operations,
        idempotency_records=records,
        unfinished_operations=unfinished,
        accumulated_passes=[s.accumulated_passes for s in states],
        expected_passes=[s.accumulated_passes for s in ref_states],
        steps=[s.step for s in states],
        expected_steps=[s.step for s in ref_states],
        results_returned=outcome.returned_by_kind(),
        errors=outcome.errors,
        comparison=compare(states, ref_states, outcome, ref_outcome),
        duration_s=time.monotonic() - started,
    )
