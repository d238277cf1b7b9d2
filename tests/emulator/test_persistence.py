"""`--state-dir`: kill -9 and restart lose nothing acknowledged (sessions, operations, results,
idempotency records, policy weights, accumulated gradients); unfinished operations run after it."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from _emulator_bodies import (
    fb_body,
    new_session,
    process_client,
    run_op,
    stats,
    submit,
    wait_operation,
)
from together_rl_contract_tests._emulator_process import EmulatorProcess
from together_rl_emulator.state._store import DB_FILE, Store

Start = Callable[..., EmulatorProcess]


def test_kill_9_and_restart_lose_nothing(state_dir: Path, emulator_processes: Start) -> None:
    first = emulator_processes(state_dir, seed=7)
    with process_client(first) as c:
        mr = c.post("/v1/rl/model-resources", json={"base_model": "emulator/tiny-1k"}).json()
        sid = new_session(c)
        stopped_sid = new_session(c)
        c.post(f"/v1/rl/training-sessions/{stopped_sid}/stop")
        done = run_op(c, sid, fb_body(return_loss_fn_outputs=True), "k-done")
        run_op(c, sid, fb_body(seed=3), "k-second")
        forward = run_op(c, sid, fb_body(forward_only=True), "k-forward")
        before = stats(c)["sessions"][sid]
        session = c.get(f"/v1/rl/training-sessions/{sid}").json()
    assert before["accumulated_passes"] == 2
    grad_files = sorted(p.name for p in (state_dir / "arrays" / sid).iterdir())
    assert grad_files == ["grads-2.npz", "policy.npz"]
    with np.load(state_dir / "arrays" / sid / "grads-2.npz") as g:
        saved_grads = {k: g[k].copy() for k in g.files}
    first.kill9()

    second = emulator_processes(state_dir, seed=7)
    with process_client(second) as c:
        assert c.get(f"/v1/rl/model-resources/{mr['id']}").json() == mr
        assert c.get(f"/v1/rl/training-sessions/{sid}").json() == session
        status = c.get(f"/v1/rl/training-sessions/{stopped_sid}").json()["status"]
        assert status == "TRAINING_SESSION_STATUS_STOPPED"
        path = f"/v1/rl/training-sessions/{sid}/operations/forward-backward"
        assert c.get(f"{path}/{done['id']}").json() == done
        # Idempotency records survived: a replay, and a changed body is still refused.
        replay = submit(c, sid, fb_body(return_loss_fn_outputs=True), "k-done")
        assert replay.json() == done
        assert submit(c, sid, fb_body(seed=5), "k-done").status_code == 422
        after = stats(c)["sessions"][sid]
        assert after["accumulated_passes"] == 2
        assert after["accumulated_grad_norm"] == pytest.approx(before["accumulated_grad_norm"])
        # Same policy after the restart: the same forward-only loss.
        again = run_op(c, sid, fb_body(forward_only=True), "k-forward-2")
        assert again["output"]["loss"] == forward["output"]["loss"]
        # Accumulation continues from the restored gradients.
        run_op(c, sid, fb_body(seed=3), "k-third")
        assert stats(c)["sessions"][sid]["accumulated_passes"] == 3
    with np.load(state_dir / "arrays" / sid / "grads-3.npz") as g:
        third = {k: g[k].copy() for k in g.files}
    for k, v in saved_grads.items():
        assert np.all(np.isfinite(third[k]))
        assert not np.array_equal(third[k], v)


def test_unfinished_operations_run_after_a_restart(
    state_dir: Path, emulator_processes: Start
) -> None:
    first = emulator_processes(state_dir, "--op-latency-ms", "600000")
    with process_client(first) as c:
        sid = new_session(c)
        ops = [submit(c, sid, fb_body(seed=i), f"k{i}").json()["id"] for i in range(3)]
    first.kill9()

    second = emulator_processes(state_dir)  # no latency now: the queued operations complete
    with process_client(second) as c:
        results = [wait_operation(c, sid, op_id) for op_id in ops]
        assert [r["status"] for r in results] == ["TRAINING_OPERATION_STATUS_COMPLETED"] * 3
        assert stats(c)["sessions"][sid]["accumulated_passes"] == 3
        assert stats(c)["operations_created"] == {}  # counters are per process; state is not


def test_generated_key_is_printed_once_and_reused(
    state_dir: Path, emulator_processes: Start
) -> None:
    first = emulator_processes(state_dir, api_key=None)
    printed = "".join(first.output)
    key = re.search(r"generated API key.*: (\S+)", printed)
    assert key is not None
    stored = (state_dir / "api_key").read_text().strip()
    assert stored == key.group(1)
    assert (state_dir / "api_key").stat().st_mode & 0o077 == 0
    with process_client(first, stored) as c:
        sid = new_session(c)
    first.stop()

    second = emulator_processes(state_dir, api_key=None)
    assert stored not in "".join(second.output)  # not printed again
    with process_client(second, stored) as c:
        assert c.get(f"/v1/rl/training-sessions/{sid}").status_code == 200


def test_checkpoint_survives_kill_9_and_resumes_bit_for_bit(
    state_dir: Path, emulator_processes: Start
) -> None:
    """A training checkpoint is durable like the rest of the state: after kill -9 and a
    restart, a session resumed from it trains on exactly as the uninterrupted run did."""
    from _checkpoint_helpers import TRAINING, new_resources, new_session_on, save, train_step

    first = emulator_processes(state_dir, seed=3)
    with process_client(first) as c:
        sid = new_session_on(c, new_resources(c)["id"])["id"]
        train_step(c, sid, 0, "a")
        checkpoint = save(c, sid, TRAINING, "ckpt")
        uninterrupted = [train_step(c, sid, step, "a") for step in (1, 2)]
    first.kill9()

    second = emulator_processes(state_dir, seed=3)
    with process_client(second) as c:
        assert c.get(f"/v1/rl/checkpoints/{checkpoint['id']}").json()["step"] == "1"
        resumed = new_session_on(
            c, new_resources(c)["id"], resume_from_checkpoint_id=checkpoint["id"]
        )["id"]
        assert [train_step(c, resumed, step, "b") for step in (1, 2)] == uninterrupted


def test_a_state_dir_of_an_older_emulator_gains_the_new_columns(tmp_path: Path) -> None:
    """Operations written before `finished_at` existed open with it unknown (None)."""
    db = sqlite3.connect(tmp_path / DB_FILE)
    db.execute(
        "CREATE TABLE operations (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, owner TEXT NOT"
        " NULL, kind TEXT NOT NULL, seq INTEGER NOT NULL UNIQUE, status TEXT NOT NULL,"
        " submitted_at REAL NOT NULL, request BLOB, output BLOB, error BLOB)"
    )
    db.execute(
        "INSERT INTO operations VALUES ('op-1', 'sess-1', 'owner', 'forward-backward', 1,"
        " 'TRAINING_OPERATION_STATUS_COMPLETED', 12.5, NULL, X'7B7D', NULL)"
    )
    db.commit()
    db.close()
    store = Store(tmp_path)
    row = store.find_operation("owner", "op-1")
    assert row is not None and row.submitted_at == 12.5 and row.finished_at is None
    assert store.find_operation("someone else", "op-1") is None
    store.close()
