"""Operation lifecycle: ordering, latency, stop, failures, accumulation, outputs, determinism."""

from __future__ import annotations

import time
from typing import Any

import httpx
import numpy as np
import orjson
import pytest
from _emulator_bodies import (
    LOSS_TYPES,
    assert_schema,
    fb_body,
    new_session,
    run_op,
    stats,
    submit,
    wait_operation,
)
from emulator_harness import COMPLETED, FAILED, emulator_test_client
from together_rl_emulator.checking._requests import (
    ForwardBackwardRequest,
    validate_forward_backward,
)
from together_rl_emulator.compute import _engine
from together_rl_emulator.compute._engine import PassResult, run_forward_backward
from together_rl_emulator.compute._losses import compute_loss
from together_rl_emulator.compute._policy_model import PolicyParams


@pytest.mark.parametrize("loss_type", LOSS_TYPES)
def test_every_loss_type_completes_with_metrics(
    emulator_client: httpx.Client, loss_type: str
) -> None:
    """The loss and metrics served are those of the logprobs the policy reports for the inputs
    sent (a forward-only pass with outputs gives the logprobs; the training pass the loss)."""
    sid = new_session(emulator_client)
    body = fb_body(loss_type, n_samples=2, length=6)
    scored = run_op(emulator_client, sid, {**body, "forward_only": True,
                                          "return_loss_fn_outputs": True}, "scored")  # fmt: skip
    op = run_op(emulator_client, sid, body, "k")
    assert op["status"] == COMPLETED, op
    assert_schema(op, "ForwardBackwardOperation")
    assert op["output"]["loss_fn_outputs"] == []
    logprobs = [
        np.array(out["tensors"]["logprobs"]["data"], dtype=np.float64)
        for out in scored["output"]["loss_fn_outputs"]
    ]
    inputs = [s.inputs for s in validate_forward_backward(body, 1024).samples]
    expected = compute_loss(body["loss"], logprobs, inputs)
    assert np.isfinite(op["output"]["loss"])
    assert op["output"]["loss"] == pytest.approx(expected.loss, rel=1e-5, abs=1e-6)
    assert op["output"]["metrics"] == pytest.approx(expected.metrics, rel=1e-5, abs=1e-6)
    if loss_type != "LOSS_TYPE_CROSS_ENTROPY":
        assert "loss/ratio/mean" in op["output"]["metrics"]
    if loss_type == "LOSS_TYPE_GRPO":
        assert "loss/kl_ref/mean" in op["output"]["metrics"]


def test_loss_fn_outputs_are_float32_and_masked_to_exact_zero(
    emulator_client: httpx.Client,
) -> None:
    sid = new_session(emulator_client)
    body = fb_body("LOSS_TYPE_PPO", n_samples=3, length=5, return_loss_fn_outputs=True)
    r = submit(emulator_client, sid, body, "k")
    wait_operation(emulator_client, sid, r.json()["id"])
    raw = emulator_client.get(
        f"/v1/rl/training-sessions/{sid}/operations/forward-backward/{r.json()['id']}"
    ).content
    assert b"-0.0," not in raw and b"-0.0]" not in raw
    outputs = orjson.loads(raw)["output"]["loss_fn_outputs"]
    assert len(outputs) == 3
    for out, sample in zip(outputs, body["samples"], strict=True):
        lp = out["tensors"]["logprobs"]
        assert lp["dtype"] == "float32"
        assert len(lp["data"]) == 5
        mask = sample["loss_fn_inputs"]["mask"]["data"]
        for value, m in zip(lp["data"], mask, strict=True):
            if m == 0:
                assert value == 0.0
            else:
                assert value < 0.0
                assert np.float32(value) == value  # representable as float32


def test_forward_only_does_not_accumulate(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    run_op(emulator_client, sid, fb_body(forward_only=True), "k1")
    assert stats(emulator_client)["sessions"][sid]["accumulated_passes"] == 0
    assert stats(emulator_client)["sessions"][sid]["accumulated_grad_norm"] == 0.0
    run_op(emulator_client, sid, fb_body(), "k2")
    one = stats(emulator_client)["sessions"][sid]
    assert one["accumulated_passes"] == 1 and one["accumulated_grad_norm"] > 0
    run_op(emulator_client, sid, fb_body(), "k3")  # the same gradient again: the sum doubles
    two = stats(emulator_client)["sessions"][sid]
    assert two["accumulated_passes"] == 2
    assert two["accumulated_grad_norm"] == pytest.approx(2 * one["accumulated_grad_norm"])


def test_policy_does_not_change_without_an_optimizer_step(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    before = run_op(emulator_client, sid, fb_body(forward_only=True), "k1")["output"]["loss"]
    for i in range(3):
        run_op(emulator_client, sid, fb_body(), f"train-{i}")
    after = run_op(emulator_client, sid, fb_body(forward_only=True), "k2")["output"]["loss"]
    assert after == before


def test_policies_are_deterministic_per_seed_and_session(emulator_app_factory: Any) -> None:
    losses: list[list[float]] = []
    for seed in (0, 0, 1):
        with emulator_test_client(emulator_app_factory(seed=seed)) as client:
            a, b = new_session(client), new_session(client)
            losses.append([run_op(client, s, fb_body(), "k")["output"]["loss"] for s in (a, b)])
    assert losses[0] == losses[1]
    assert losses[0][0] != losses[0][1]  # two sessions, two policies
    assert losses[2] != losses[0]


def test_operations_run_in_submission_order(
    emulator_client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    executed: list[int] = []

    def recording(params: PolicyParams, request: ForwardBackwardRequest) -> PassResult:
        executed.append(len(request.samples))
        time.sleep(0.002)
        return run_forward_backward(params, request)

    monkeypatch.setattr(_engine, "run_forward_backward", recording)
    s1, s2 = new_session(emulator_client), new_session(emulator_client)
    submitted: list[tuple[str, str, int]] = []
    for i in range(1, 13):
        sid = s1 if i % 3 else s2
        r = submit(emulator_client, sid, fb_body(n_samples=i), f"k{i}")
        submitted.append((sid, r.json()["id"], i))
    for sid, op_id, _ in submitted:
        assert wait_operation(emulator_client, sid, op_id)["status"] == COMPLETED
    for sid in (s1, s2):
        assert [n for n in executed if any(n == i and s == sid for s, _, i in submitted)] == [
            i for s, _, i in submitted if s == sid
        ]
    assert executed == list(range(1, 13))


def test_op_latency_holds_the_result(emulator_app_factory: Any) -> None:
    with emulator_test_client(emulator_app_factory(op_latency_ms=700)) as client:
        sid = new_session(client)
        posted = time.monotonic()
        r = submit(client, sid, fb_body(), "k")
        assert r.json()["status"] == "TRAINING_OPERATION_STATUS_PENDING"
        first_poll = client.get(
            f"/v1/rl/training-sessions/{sid}/operations/forward-backward/{r.json()['id']}"
        ).json()
        assert first_poll["status"] not in (COMPLETED, FAILED)
        done = wait_operation(client, sid, r.json()["id"])
        assert done["status"] == COMPLETED
        assert time.monotonic() - posted >= 0.7  # a lower bound the emulator guarantees


def test_the_emulator_reports_when_an_operation_arrived_and_finished(
    emulator_app_factory: Any,
) -> None:
    """`GET /_emulator/operations/{id}`: the server's own times (what the benchmark measures
    submit -> COMPLETED with), for COMPLETED and FAILED operations, to their key only."""
    with emulator_test_client(emulator_app_factory(op_latency_ms=300)) as client:
        sid = new_session(client)
        before = time.time()
        op_id = submit(client, sid, fb_body(), "k").json()["id"]
        pending = client.get(f"/_emulator/operations/{op_id}").json()
        assert pending["finished_at"] is None and before <= pending["submitted_at"] <= time.time()
        wait_operation(client, sid, op_id)
        done = client.get(f"/_emulator/operations/{op_id}").json()
        assert done["status"] == COMPLETED and done["kind"] == "forward-backward"
        assert done["finished_at"] - done["submitted_at"] >= 0.3  # the op latency held it
        queued = submit(client, sid, fb_body(seed=1), "k1").json()["id"]
        client.post(f"/v1/rl/training-sessions/{sid}/stop")
        wait_operation(client, sid, queued)
        failed = client.get(f"/_emulator/operations/{queued}").json()
        assert failed["status"] == FAILED and failed["finished_at"] is not None
        other = emulator_test_client(client.app, api_key="other-key")  # type: ignore[attr-defined]
        assert other.get(f"/_emulator/operations/{op_id}").status_code == 404
        missing = client.get("/_emulator/operations/op-nope")
        assert missing.status_code == 404 and missing.json()["error"]["param"] == "operation_id"


def test_stop_fails_queued_operations_with_session_not_active(emulator_app_factory: Any) -> None:
    with emulator_test_client(emulator_app_factory(op_latency_ms=60_000)) as client:
        sid = new_session(client)
        ops = [submit(client, sid, fb_body(seed=i), f"k{i}").json()["id"] for i in range(3)]
        stopped = client.post(f"/v1/rl/training-sessions/{sid}/stop")
        assert stopped.json()["status"] == "TRAINING_SESSION_STATUS_STOPPED"
        for op_id in ops:
            op = wait_operation(client, sid, op_id, guard_s=20)
            assert op["status"] == FAILED
            assert op["error"]["code"] == "TRAINING_OPERATION_ERROR_CODE_SESSION_NOT_ACTIVE"
            assert_schema(op, "ForwardBackwardOperation")
        assert stats(client)["sessions"][sid]["accumulated_passes"] == 0
        # New work on a stopped session is refused; a replay still returns the failed operation.
        r = submit(client, sid, fb_body(seed=99), "new-key")
        assert r.status_code == 400
        assert r.json()["error"]["code"] == "session_not_active"
        replay = submit(client, sid, fb_body(seed=0), "k0")
        assert replay.status_code == 200 and replay.json()["id"] == ops[0]


def _non_finite_body() -> dict[str, Any]:
    # IS loss -r·A with r = exp(l - q): q = -1e30 (a finite float32) makes r = +inf.
    body = fb_body("LOSS_TYPE_IMPORTANCE_SAMPLING", length=4)
    body["samples"][0]["loss_fn_inputs"]["logprobs"]["data"] = [-1e30] * 4
    body["samples"][0]["loss_fn_inputs"]["advantages"]["data"] = [1.0] * 4
    return body


def test_non_finite_loss_fails_and_accumulates_nothing(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    op = run_op(emulator_client, sid, _non_finite_body(), "k")
    assert op["status"] == FAILED
    assert op["error"]["code"] == "TRAINING_OPERATION_ERROR_CODE_NON_FINITE_LOSS"
    assert "not finite" in op["error"]["message"]
    assert stats(emulator_client)["sessions"][sid]["accumulated_passes"] == 0
    # The session keeps working.
    assert run_op(emulator_client, sid, fb_body(), "k2")["status"] == COMPLETED


def test_huge_advantages_overflow_to_non_finite(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    # r = exp(l - q) ~ e^683 is finite in float64; r·A with A = 3e38 is not.
    body = fb_body("LOSS_TYPE_IMPORTANCE_SAMPLING", length=4)
    body["samples"][0]["loss_fn_inputs"]["logprobs"]["data"] = [-690.0] * 4
    body["samples"][0]["loss_fn_inputs"]["advantages"]["data"] = [3.0e38] * 4
    op = run_op(emulator_client, sid, body, "k")
    assert op["status"] == FAILED
    assert op["error"]["code"] == "TRAINING_OPERATION_ERROR_CODE_NON_FINITE_LOSS"
