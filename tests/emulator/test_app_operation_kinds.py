"""The other operation kinds over HTTP (in-process): optim-step, weights-sync, sample and custom
forward-backward, their validation, ordering, idempotency, stats and faults."""

from __future__ import annotations

from typing import Any

import httpx
import numpy as np
import pytest
from _adamw_reference import reference_adamw
from _emulator_bodies import assert_schema, new_session, stats
from _operation_kind_bodies import (
    OPS,
    ce_body,
    custom_body,
    forward_logprobs,
    model_input,
    run_kind,
    sample_body,
    submit_kind,
    wait_kind,
)
from emulator_harness import COMPLETED, emulator_test_client

TOKENS = [5, 17, 300, 42, 7, 999, 12]
ADAM = {"learning_rate": 0.05, "beta1": 0.9, "beta2": 0.95, "eps": 1e-8, "weight_decay": 0.01,
        "grad_clip_norm": 0.5}  # fmt: skip


def _error(r: httpx.Response, status: int, param: str | None) -> str:
    assert r.status_code == status, r.text
    body = r.json()["error"]
    assert body["param"] == param, body
    message: str = body["message"]
    return message


# ----------------------------------------------------------------------------- optim-step
def test_optim_step_applies_adamw_to_the_accumulated_gradients(emulator_app: Any) -> None:
    """AdamW with global-norm clipping, checked against a reference written here."""
    with emulator_test_client(emulator_app) as client:
        sid = new_session(client)
        store = emulator_app.emulator.store
        for i in range(2):
            run_kind(client, sid, "forward-backward", ce_body(TOKENS[:-1], TOKENS[1:], [1.0] * 6),
                     f"fb{i}")  # fmt: skip
        state = store.trainer(store.get_session(None, sid))
        params = {k: v.copy() for k, v in state.params.to_arrays().items()}
        grads = {k: v.copy() for k, v in state.grads.items()}
        op = run_kind(client, sid, "optim-step", {"adam_params": ADAM}, "step")
        assert_schema(op, "OptimStepOperation")
        assert int(op["output"]["step"]) == 1
        after = store.trainer(store.get_session(None, sid))

    norm = np.sqrt(sum(float((g**2).sum()) for g in grads.values()))
    assert norm > ADAM["grad_clip_norm"]  # the clipping is exercised
    expected = reference_adamw(params, [grads], ADAM)
    for key, p in expected.items():
        np.testing.assert_allclose(after.params.to_arrays()[key], p, rtol=1e-10, atol=1e-12)
    assert after.accumulated_passes == 0
    assert all(not g.any() for g in after.grads.values())


def test_optim_step_updates_the_session_and_clears_the_accumulator(
    emulator_client: httpx.Client,
) -> None:
    sid = new_session(emulator_client)
    run_kind(emulator_client, sid, "forward-backward", ce_body([1, 2], [2, 3], [1.0, 1.0]), "fb")
    assert stats(emulator_client)["sessions"][sid]["accumulated_passes"] == 1
    assert run_kind(emulator_client, sid, "optim-step", {}, "s1")["output"] == {"step": "1"}
    assert run_kind(emulator_client, sid, "optim-step", {}, "s2")["output"] == {"step": "2"}
    session = emulator_client.get(f"/v1/rl/training-sessions/{sid}").json()
    assert session["step"] == "2"
    assert session["policy_state"]["trainer_step"] == "2"
    assert_schema(session, "Session")
    counters = stats(emulator_client)
    assert counters["sessions"][sid]["accumulated_passes"] == 0
    assert counters["sessions"][sid]["accumulated_grad_norm"] == 0.0
    assert counters["sessions"][sid]["step"] == 2
    assert counters["operations_created"]["optim-step"] == 2


def test_optim_step_changes_forward_logprobs_only_after_the_step(
    emulator_client: httpx.Client,
) -> None:
    sid = new_session(emulator_client)
    before = forward_logprobs(emulator_client, sid, TOKENS, "f0")
    run_kind(emulator_client, sid, "forward-backward", ce_body(TOKENS[:-1], TOKENS[1:], [1.0] * 6),
             "fb")  # fmt: skip
    assert forward_logprobs(emulator_client, sid, TOKENS, "f1") == before
    run_kind(emulator_client, sid, "optim-step", {"adam_params": {"learning_rate": 0.1}}, "s")
    after = forward_logprobs(emulator_client, sid, TOKENS, "f2")
    assert sum(after) > sum(before)  # cross-entropy descent raised the targets' log-probs


def test_muon_on_adamw_is_refused_and_adam_bounds_are_checked(
    emulator_client: httpx.Client,
) -> None:
    sid = new_session(emulator_client)
    r = submit_kind(emulator_client, sid, "optim-step", {"muon_params": {"momentum": 0.9}}, "m")
    assert "without optimizer_config.muon" in _error(r, 400, "muon_params")
    r = submit_kind(emulator_client, sid, "optim-step", {"adam_params": {"beta1": 1.0}}, "b")
    _error(r, 400, "adam_params.beta1")
    r = submit_kind(emulator_client, sid, "optim-step", {"adam_params": {"eps": 0}}, "e")
    _error(r, 400, "adam_params.eps")
    r = submit_kind(emulator_client, sid, "optim-step", {"adam": {}}, "x")
    _error(r, 400, "adam")
    assert "optim-step" not in stats(emulator_client)["operations_created"]


def test_operations_queue_in_submission_order_across_kinds(emulator_app_factory: Any) -> None:
    """Three forward-backwards and an optim-step submitted back to back (latency keeps them
    queued): the step applies all three; a reference run that waits for each agrees exactly."""
    finals = []
    for latency in (0, 150):
        app = emulator_app_factory(seed=3, op_latency_ms=latency)
        with emulator_test_client(app) as client:
            sid = new_session(client)
            # Three different bodies (their weights differ), so each pass adds its own gradient.
            bodies = [ce_body(TOKENS[:-1], TOKENS[1:], [0.5 * (i + 1)] * 6) for i in range(3)]
            ids = []
            for i, body in enumerate(bodies):
                r = submit_kind(client, sid, "forward-backward", body, f"fb{i}")
                ids.append(r.json()["id"])
                if latency == 0:
                    wait_kind(client, sid, "forward-backward", ids[-1])
            r = submit_kind(client, sid, "optim-step", {"adam_params": ADAM}, "step")
            if latency:
                assert r.json()["status"] == "TRAINING_OPERATION_STATUS_PENDING"
            step = wait_kind(client, sid, "optim-step", r.json()["id"])
            assert step["status"] == COMPLETED
            for op_id in ids:
                assert wait_kind(client, sid, "forward-backward", op_id)["status"] == COMPLETED
            assert stats(client)["sessions"][sid]["accumulated_passes"] == 0
            store = app.emulator.store
            finals.append(store.trainer(store.get_session(None, sid)).params.to_arrays())
    for key in finals[0]:
        np.testing.assert_array_equal(finals[0][key], finals[1][key])


# ----------------------------------------------------------------------------- weights-sync
def test_weights_sync_all_types_bump_the_version(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    types = ["WEIGHT_SYNC_TYPE_SYNCHRONOUS", "WEIGHT_SYNC_TYPE_BACKGROUND_PUBLISH",
             "WEIGHT_SYNC_TYPE_PIPELINE"]  # fmt: skip
    for n, sync_type in enumerate(types, start=1):
        op = run_kind(
            emulator_client, sid, "weights-sync", {"weight_sync_type": sync_type}, f"w{n}"
        )
        assert_schema(op, "WeightsSyncOperation")
        assert op["output"] == {"weights_version": str(n)}
    state = emulator_client.get(f"/v1/rl/training-sessions/{sid}").json()["policy_state"]
    assert state == {"applied_weights_version": "3", "pending_publish": False,
                     "target_weights_version": "3", "trainer_step": "0"}  # fmt: skip
    r = submit_kind(emulator_client, sid, "weights-sync", {"weight_sync_type": "NOW"}, "bad")
    _error(r, 400, "weight_sync_type")
    r = submit_kind(emulator_client, sid, "weights-sync", {}, "missing")
    _error(r, 400, "weight_sync_type")


# ----------------------------------------------------------------------------- sample
def _sample(client: httpx.Client, sid: str, key: str, **params: Any) -> dict[str, Any]:
    op = run_kind(client, sid, "sample", sample_body([5, 17, 300], **params), key)
    assert_schema(op, "SampleOperation")
    result: dict[str, Any] = op["output"]["results"][0]
    return result


def test_seeded_sampling_is_reproducible(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    a = _sample(emulator_client, sid, "a", num_samples=4, max_tokens=12, seed=11)
    b = _sample(emulator_client, sid, "b", num_samples=4, max_tokens=12, seed="11")
    c = _sample(emulator_client, sid, "c", num_samples=4, max_tokens=12, seed=12)
    assert a == b
    assert [s["tokens"] for s in a["sequences"]] != [s["tokens"] for s in c["sequences"]]
    seq = a["sequences"][0]
    assert len(seq["tokens"]) == 12 and len(seq["logprobs"]) == 12
    assert seq["stop_reason"] == "STOP_REASON_LENGTH"
    assert seq["prompt_cache_hit_tokens"] == 0
    assert a["policy_segments"] == [{"start_token": 0, "version": 0}]
    # Without a seed: different draws per operation (each derived from the operation).
    d = _sample(emulator_client, sid, "d", num_samples=4, max_tokens=12)
    e = _sample(emulator_client, sid, "e", num_samples=4, max_tokens=12)
    assert d["sequences"] != e["sequences"]


def test_sample_logprobs_equal_forward_logprobs(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    # Move the policy away from its init and publish it, so the identity is checked on
    # trained weights too.
    run_kind(emulator_client, sid, "forward-backward", ce_body(TOKENS[:-1], TOKENS[1:], [1.0] * 6),
             "fb")  # fmt: skip
    run_kind(emulator_client, sid, "optim-step", {"adam_params": {"learning_rate": 0.1}}, "s")
    run_kind(emulator_client, sid, "weights-sync",
             {"weight_sync_type": "WEIGHT_SYNC_TYPE_SYNCHRONOUS"}, "w")  # fmt: skip
    prompt = [5, 17, 300]
    result = _sample(emulator_client, sid, "x", num_samples=3, max_tokens=9, seed=4,
                     temperature=0.7, top_k=50, prompt_logprobs=True)  # fmt: skip
    assert result["policy_segments"] == [{"start_token": 0, "version": 1}]
    for i, seq in enumerate(result["sequences"]):
        full = forward_logprobs(emulator_client, sid, prompt + seq["tokens"], f"f{i}")
        np.testing.assert_allclose(full[len(prompt) - 1 :], seq["logprobs"], atol=1e-5, rtol=0)
    prompt_lp = forward_logprobs(emulator_client, sid, prompt, "fp")
    assert result["prompt_logprobs"][0] == 0.0
    np.testing.assert_allclose(result["prompt_logprobs"][1:], prompt_lp, atol=1e-5, rtol=0)


def test_sample_sees_new_weights_only_after_weights_sync(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    first = _sample(emulator_client, sid, "a", num_samples=2, max_tokens=8, seed=1)
    run_kind(emulator_client, sid, "forward-backward", ce_body(TOKENS[:-1], TOKENS[1:], [1.0] * 6),
             "fb")  # fmt: skip
    run_kind(emulator_client, sid, "optim-step", {"adam_params": {"learning_rate": 0.1}}, "s")
    assert _sample(emulator_client, sid, "b", num_samples=2, max_tokens=8, seed=1) == first
    run_kind(emulator_client, sid, "weights-sync",
             {"weight_sync_type": "WEIGHT_SYNC_TYPE_BACKGROUND_PUBLISH"}, "w")  # fmt: skip
    synced = _sample(emulator_client, sid, "c", num_samples=2, max_tokens=8, seed=1)
    assert synced["policy_segments"] == [{"start_token": 0, "version": 1}]
    assert [s["logprobs"] for s in synced["sequences"]] != [
        s["logprobs"] for s in first["sequences"]
    ]


def test_sample_stop_strings_topk_and_validation(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    ascii_chars = [chr(b) for b in range(128)]  # tiny-1k decodes token id i as byte i mod 256
    stopped = _sample(emulator_client, sid, "s", max_tokens=10, stop=ascii_chars, num_samples=8,
                      topk_prompt_logprobs=3)  # fmt: skip
    for seq in stopped["sequences"]:  # each ends at its first token that decodes to ASCII
        ascii_at = [n for n, t in enumerate(seq["tokens"]) if int(t) % 256 < 128]
        if seq["stop_reason"] == "STOP_REASON_STOP":
            assert ascii_at == [len(seq["tokens"]) - 1]
        else:
            assert not ascii_at and len(seq["tokens"]) == 10
    assert any(seq["stop_reason"] == "STOP_REASON_STOP" for seq in stopped["sequences"])
    topk = stopped["topk_prompt_logprobs"]
    assert len(topk) == 3 and topk[0] == {"logprobs": [], "token_ids": []}
    assert len(topk[1]["token_ids"]) == 3
    assert topk[1]["logprobs"] == sorted(topk[1]["logprobs"], reverse=True)

    def refused(body: Any, param: str) -> str:
        return _error(submit_kind(emulator_client, sid, "sample", body, "bad"), 400, param)

    refused(sample_body([5, 1024]), "model_inputs[0].chunks[0].encoded_text.tokens[1]")
    assert "must not be empty" in refused(sample_body([5], stop=["\n", ""]),
                                          "sampling_params.stop[1]")  # fmt: skip
    refused(sample_body([5], temperature=-1), "sampling_params.temperature")
    refused(sample_body([5], top_p=0), "sampling_params.top_p")
    refused(sample_body([5], num_samples=0), "num_samples")
    refused({"model_inputs": []}, "model_inputs")
    # 20 prompts x 64 samples x 8192 tokens = 10.5 M tokens: over the per-request budget.
    too_many = {**sample_body([5], num_samples=64, max_tokens=8192)}
    too_many["model_inputs"] = too_many["model_inputs"] * 20
    assert "exceeds the emulator's limit" in refused(too_many, "sampling_params.max_tokens")


# ----------------------------------------------------------------------------- custom FB
def test_custom_forward_backward_equals_cross_entropy_with_the_same_gradient(
    emulator_app_factory: Any,
) -> None:
    """CE's dL/dlogp is -w; sending -w as the custom gradient accumulates the same gradients
    (same seed, same session ordinal: the same policy)."""
    tokens, targets, weights = TOKENS[:-1], TOKENS[1:], [0.0, 1.0, 0.5, 1.0, 2.0, 1.0]
    runs = []
    for kind, body in (
        ("forward-backward", ce_body(tokens, targets, weights)),
        ("custom-forward-backward", custom_body(tokens, targets, [-w for w in weights])),
    ):
        app = emulator_app_factory(seed=5)
        with emulator_test_client(app) as client:
            sid = new_session(client)
            op = run_kind(client, sid, kind, body, "k")
            if kind == "custom-forward-backward":
                assert op["output"] == {}
                assert_schema(op, "CustomForwardBackwardOperation")
            session_stats = stats(client)["sessions"][sid]
            run_kind(client, sid, "optim-step", {"adam_params": {"learning_rate": 0.01}}, "s")
            runs.append((session_stats, forward_logprobs(client, sid, TOKENS, "f")))
    (ce_stats, ce_lp), (custom_stats, custom_lp) = runs
    assert custom_stats["accumulated_passes"] == ce_stats["accumulated_passes"] == 1
    assert custom_stats["accumulated_grad_norm"] == pytest.approx(
        ce_stats["accumulated_grad_norm"], rel=1e-12
    )
    np.testing.assert_allclose(custom_lp, ce_lp, atol=1e-6)


def test_custom_forward_backward_validation(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)

    def refused(body: Any, param: str | None) -> str:
        r = submit_kind(emulator_client, sid, "custom-forward-backward", body, "bad")
        return _error(r, 400, param)

    ok = custom_body([1, 2, 3], [2, 3, 4], [0.1, 0.2, 0.3])
    two = {"samples": ok["samples"] * 2, "gradients": ok["gradients"]}
    assert "one gradient per sample" in refused(two, "gradients")
    short = custom_body([1, 2, 3], [2, 3, 4], [0.1, 0.2])
    refused(short, "gradients[0].data")
    no_targets = custom_body([1, 2, 3], [2, 3, 4], [0.1, 0.2, 0.3])
    no_targets["samples"][0]["loss_fn_inputs"] = {"mask": {"data": [1, 1, 1], "dtype": "int64"}}
    refused(no_targets, "samples[0].loss_fn_inputs.target_tokens")
    both = custom_body([1, 2, 3], [2, 3, 4], [0.1, 0.2, 0.3])
    both["samples"][0]["loss_fn_inputs"]["mask"] = {"data": [1, 1, 1], "dtype": "int64"}
    both["samples"][0]["loss_fn_inputs"]["weights"] = {"data": [1, 1, 1], "dtype": "int64"}
    refused(both, "samples[0].loss_fn_inputs")
    refused(custom_body([1, 2, 3], [2, 3, 4096], [0.1, 0.2, 0.3]),
            "samples[0].loss_fn_inputs.target_tokens")  # fmt: skip
    refused({**ok, "gradients": [{"data": [], "dtype": "D_TYPE_FLOAT32"}]}, "gradients[0].data")
    assert stats(emulator_client)["sessions"][sid]["accumulated_passes"] == 0


# ----------------------------------------------------------------------------- shared machinery
@pytest.mark.parametrize(
    ("kind", "body", "changed"),
    [
        ("optim-step", {"adam_params": {"learning_rate": 0.001}},
         {"adam_params": {"learning_rate": 0.002}}),
        ("weights-sync", {"weight_sync_type": "WEIGHT_SYNC_TYPE_SYNCHRONOUS"},
         {"weight_sync_type": "WEIGHT_SYNC_TYPE_PIPELINE"}),
        ("sample", sample_body([1, 2], max_tokens=3, seed=1),
         sample_body([1, 2], max_tokens=3, seed=2)),
        ("custom-forward-backward", custom_body([1, 2], [2, 3], [0.5, 0.5]),
         custom_body([1, 2], [2, 3], [0.5, 0.25])),
    ],
)  # fmt: skip
def test_idempotency_per_kind(
    emulator_client: httpx.Client, kind: str, body: Any, changed: Any
) -> None:
    sid = new_session(emulator_client)
    first = submit_kind(emulator_client, sid, kind, body, "same-key")
    assert first.status_code == 200, first.text
    done = wait_kind(emulator_client, sid, kind, first.json()["id"])
    replay = submit_kind(emulator_client, sid, kind, body, "same-key")
    assert replay.json() == done
    reused = submit_kind(emulator_client, sid, kind, changed, "same-key")
    assert reused.status_code == 422 and reused.headers["x-should-retry"] == "false"
    # The scope includes the kind: the same key on forward-backward is a new operation.
    fb = submit_kind(emulator_client, sid, "forward-backward", ce_body([1], [2], [1.0]), "same-key")
    assert fb.status_code == 200 and fb.json()["id"] != done["id"]
    counters = stats(emulator_client)
    assert counters["operations_created"][kind] == 1
    assert counters["idempotent_replays"][kind] == 1
    # An operation is found only under its own kind.
    other = "optim-step" if kind != "optim-step" else "sample"
    r = emulator_client.get(f"{OPS.format(sid, other)}/{done['id']}")
    assert r.status_code == 404 and r.json()["error"]["param"] == "operation_id"


def test_missing_key_stopped_session_and_other_key(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    r = emulator_client.post(OPS.format(sid, "optim-step"), json={})
    _error(r, 400, "Idempotency-Key")
    r = submit_kind(emulator_client, sid, "sample", sample_body([1]), "k",
                    Authorization="Bearer other-key")  # fmt: skip
    _error(r, 404, "session_id")
    emulator_client.post(f"/v1/rl/training-sessions/{sid}/stop")
    r = submit_kind(emulator_client, sid, "weights-sync",
                    {"weight_sync_type": "WEIGHT_SYNC_TYPE_SYNCHRONOUS"}, "k")  # fmt: skip
    assert "weights-sync needs a TRAINING_SESSION_STATUS_RUNNING" in _error(r, 400, "session_id")


def test_faults_apply_to_the_new_routes(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    route = "POST /v1/rl/training-sessions/{session_id}/operations/optim-step"
    r = emulator_client.post("/_emulator/faults", json={"kind": "http_503", "route": route})
    assert r.status_code == 200, r.text
    assert submit_kind(emulator_client, sid, "optim-step", {}, "k").status_code == 503
    assert "optim-step" not in stats(emulator_client)["operations_created"]
    assert run_kind(emulator_client, sid, "optim-step", {}, "k")["output"] == {"step": "1"}
    assert stats(emulator_client)["requests"][route] == 2


def test_sample_uses_model_input_chunks_concatenated(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    split = {"model_inputs": [{"chunks": [{"encoded_text": {"tokens": [5, 17]}},
                                          {"encoded_text": {"tokens": [300]}}]},
                              model_input([5, 17, 300])],
             "sampling_params": {"max_tokens": 6, "seed": 3}, "prompt_logprobs": True}  # fmt: skip
    results = run_kind(emulator_client, sid, "sample", split, "k")["output"]["results"]
    assert len(results) == 2
    assert results[0]["prompt_logprobs"] == results[1]["prompt_logprobs"]
    assert len(results[0]["prompt_logprobs"]) == 3
