"""`--state-dir` with the other operation kinds: kill -9 and restart lose no trainer state (weights,
sampler weights, Adam moments, step, weights version, pending gradients, result payloads), and
queued optim-steps, weights-syncs and samples run after a restart in order."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from _emulator_bodies import fb_body, new_session, process_client, stats
from _operation_kind_bodies import run_kind, sample_body, submit_kind, wait_kind
from together_rl_contract_tests._emulator_process import EmulatorProcess

Start = Callable[..., EmulatorProcess]

SYNC = {"weight_sync_type": "WEIGHT_SYNC_TYPE_SYNCHRONOUS"}
STEP = {"adam_params": {"learning_rate": 0.05}}


def test_trainer_state_survives_kill_9(state_dir: Path, emulator_processes: Start) -> None:
    first = emulator_processes(state_dir, seed=7)
    with process_client(first) as c:
        sid = new_session(c)
        run_kind(c, sid, "forward-backward", fb_body(seed=1), "fb1")
        run_kind(c, sid, "forward-backward", fb_body(seed=2), "fb2")
        run_kind(c, sid, "optim-step", STEP, "step1")
        run_kind(c, sid, "weights-sync", SYNC, "sync1")
        run_kind(c, sid, "forward-backward", fb_body(seed=3), "fb3")  # pending at the kill
        sampled = run_kind(c, sid, "sample", sample_body([1, 2], max_tokens=8, seed=9), "s1")
        forward = run_kind(c, sid, "forward-backward", fb_body(forward_only=True), "fwd")
        before = stats(c)["sessions"][sid]
        session = c.get(f"/v1/rl/training-sessions/{sid}").json()
        files = sorted(p.name for p in (state_dir / "arrays" / sid).iterdir())
    assert files == ["grads-3.npz", "policy.npz", "trainer-2.npz"]
    assert session["step"] == "1" and session["policy_state"]["applied_weights_version"] == "1"
    assert before["accumulated_passes"] == 1 and before["step"] == 1
    first.kill9()

    second = emulator_processes(state_dir, seed=7)
    with process_client(second) as c:
        assert c.get(f"/v1/rl/training-sessions/{sid}").json() == session
        after = stats(c)["sessions"][sid]
        assert after == before
        again = run_kind(c, sid, "sample", sample_body([1, 2], max_tokens=8, seed=9), "s2")
        assert again["output"] == sampled["output"]
        assert (
            run_kind(c, sid, "forward-backward", fb_body(forward_only=True), "fwd2")["output"]
            == forward["output"]
        )
        assert run_kind(c, sid, "optim-step", STEP, "step2")["output"] == {"step": "2"}
        stepped = run_kind(c, sid, "forward-backward", fb_body(forward_only=True), "fwd3")
    second.stop()

    # The same history without a kill gives the same weights after the second step.
    reference = emulator_processes(state_dir.parent / "reference", seed=7)
    with process_client(reference) as c:
        rid = new_session(c)
        for key, kind, body in (
            ("fb1", "forward-backward", fb_body(seed=1)),
            ("fb2", "forward-backward", fb_body(seed=2)),
            ("step1", "optim-step", STEP),
            ("sync1", "weights-sync", SYNC),
            ("fb3", "forward-backward", fb_body(seed=3)),
            ("step2", "optim-step", STEP),
        ):
            run_kind(c, rid, kind, body, key)
        expected = run_kind(c, rid, "forward-backward", fb_body(forward_only=True), "fwd")
    assert stepped["output"]["loss"] == expected["output"]["loss"]


def test_queued_operations_of_every_kind_run_after_a_restart(
    state_dir: Path, emulator_processes: Start
) -> None:
    first = emulator_processes(state_dir, "--op-latency-ms", "600000")
    with process_client(first) as c:
        sid = new_session(c)
        queued = [
            ("forward-backward", submit_kind(c, sid, "forward-backward", fb_body(), "a")),
            ("optim-step", submit_kind(c, sid, "optim-step", STEP, "b")),
            ("weights-sync", submit_kind(c, sid, "weights-sync", SYNC, "c")),
            ("sample", submit_kind(c, sid, "sample", sample_body([3], max_tokens=2), "d")),
        ]
    first.kill9()

    second = emulator_processes(state_dir)
    with process_client(second) as c:
        done = {kind: wait_kind(c, sid, kind, r.json()["id"]) for kind, r in queued}
        assert all(op["status"] == "TRAINING_OPERATION_STATUS_COMPLETED" for op in done.values())
        assert done["optim-step"]["output"] == {"step": "1"}
        assert done["weights-sync"]["output"] == {"weights_version": "1"}
        segments = done["sample"]["output"]["results"][0]["policy_segments"]
        assert segments == [{"start_token": 0, "version": 1}]
        assert stats(c)["sessions"][sid]["accumulated_passes"] == 0
