"""Router replay over HTTP (in-process), on the catalog's mixture-of-experts model: a sample with
`return_routed_experts` returns a key per sequence, and a forward-backward (or custom one)
carrying it is computed with the sampler's expert selections; unusable keys fail the operation
with INVALID_INPUT, naming the sample; dense models return no key."""

from __future__ import annotations

from typing import Any

import httpx
import numpy as np
import pytest
from _emulator_bodies import TINY, assert_schema
from _operation_kind_bodies import (
    ce_body,
    custom_body,
    run_kind,
    sample_body,
    submit_kind,
    wait_kind,
)
from emulator_harness import OTHER_KEY, emulator_test_client, wait_until_terminal
from together_rl_emulator import EmulatorApp
from together_rl_emulator.compute._policy_model import forward, routed_selections
from together_rl_emulator.compute._routed_experts import ROUTED_EXPERTS_TTL_S
from together_rl_emulator.state import _store

MOE = "Qwen/Qwen3.6-35B-A3B"
DENSE_SAME_VOCABULARY = "Qwen/Qwen3.8-27B"
PROMPT = [5, 17, 300, 42]
FAILED = "TRAINING_OPERATION_STATUS_FAILED"
INVALID_INPUT = "TRAINING_OPERATION_ERROR_CODE_INVALID_INPUT"


def _session(client: httpx.Client, base_model: str = MOE, **headers: str) -> str:
    r = client.post("/v1/rl/model-resources", json={"base_model": base_model}, headers=headers)
    assert r.status_code == 200, r.text
    s = client.post("/v1/rl/training-sessions", json={"model_resources_id": r.json()["id"]},
                    headers=headers)  # fmt: skip
    assert s.status_code == 200, s.text
    sid: str = s.json()["id"]
    return sid


def _sample(client: httpx.Client, sid: str, key: str, **flags: Any) -> list[dict[str, Any]]:
    body = sample_body(PROMPT, num_samples=2, max_tokens=8, seed=3, temperature=1.0)
    body.update(flags)
    op = run_kind(client, sid, "sample", body, key)
    assert_schema(op, "SampleOperation")
    sequences: list[dict[str, Any]] = op["output"]["results"][0]["sequences"]
    return sequences


def _training_sample(seq: dict[str, Any], key: str | None) -> dict[str, Any]:
    full = PROMPT + seq["tokens"]
    body = ce_body(full[:-1], full[1:], [1.0] * (len(full) - 1), return_loss_fn_outputs=True)
    if key is not None:
        body["samples"][0]["routed_experts_key"] = key
    return body


def _logprobs(op: dict[str, Any]) -> list[float]:
    data: list[float] = op["output"]["loss_fn_outputs"][0]["tensors"]["logprobs"]["data"]
    return data


def _failure(client: httpx.Client, sid: str, kind: str, body: Any, key: str) -> str:
    r = submit_kind(client, sid, kind, body, key)
    assert r.status_code == 200, r.text
    op = wait_kind(client, sid, kind, r.json()["id"])
    assert op["status"] == FAILED, op
    assert op["error"]["code"] == INVALID_INPUT, op
    message: str = op["error"]["message"]
    assert message.startswith("samples[0].routed_experts_key: "), message
    return message


def test_replayed_logprobs_equal_the_samplers(emulator_client: httpx.Client) -> None:
    c = emulator_client
    sid = _session(c)
    for i, seq in enumerate(_sample(c, sid, "s", return_routed_experts=True)):
        key = seq["routed_experts_key"]
        assert isinstance(key, str) and key
        fb = run_kind(c, sid, "forward-backward", _training_sample(seq, key), f"fb{i}")
        replayed = _logprobs(fb)[len(PROMPT) - 1 :]
        np.testing.assert_allclose(replayed, seq["logprobs"], rtol=0, atol=1e-5)


def test_replay_uses_the_samplers_experts_after_the_router_moved(
    emulator_app: EmulatorApp,
) -> None:
    """After optimizer steps (no weights-sync) the trainer's router sends some tokens to other
    experts than the sampler's did; a pass with the key uses the recorded ones."""
    with emulator_test_client(emulator_app) as c:
        sid = _session(c)
        seqs = _sample(c, sid, "s", return_routed_experts=True)
        for step in range(3):
            run_kind(c, sid, "forward-backward", _training_sample(seqs[0], None), f"t{step}")
            run_kind(c, sid, "optim-step", {"adam_params": {"learning_rate": 0.3}}, f"o{step}")
        store = emulator_app.emulator.store
        params = store.trainer(store.get_session(None, sid)).params
        owner = store.get_session(None, sid).owner
        recorded = store.get_routed_experts(owner, seqs[0]["routed_experts_key"], 0.0)
        key_body = {
            **_training_sample(seqs[0], seqs[0]["routed_experts_key"]),
            "forward_only": True,
        }
        own_body = {**_training_sample(seqs[0], None), "forward_only": True}
        with_key = _logprobs(run_kind(c, sid, "forward-backward", key_body, "k"))
        without = _logprobs(run_kind(c, sid, "forward-backward", own_body, "n"))
    full = np.array(PROMPT + seqs[0]["tokens"], dtype=np.int64)
    assert recorded is not None
    assert not np.array_equal(recorded.selections, routed_selections(params, full[:-1]))
    expected = forward(params, [full[:-1]], [full[1:]], [recorded.selections]).logprobs[0]
    np.testing.assert_allclose(with_key, expected, rtol=0, atol=1e-5)
    assert not np.allclose(with_key, without, rtol=0, atol=1e-5)


def test_custom_forward_backward_replays_too(emulator_client: httpx.Client) -> None:
    c = emulator_client
    sid = _session(c)
    seq = _sample(c, sid, "s", return_routed_experts=True)[0]
    full = PROMPT + seq["tokens"]
    body = custom_body(full[:-1], full[1:], [-0.1] * (len(full) - 1))
    body["samples"][0]["routed_experts_key"] = seq["routed_experts_key"]
    run_kind(c, sid, "custom-forward-backward", body, "c")
    body["samples"][0]["routed_experts_key"] = "rex-unknown"
    _failure(c, sid, "custom-forward-backward", body, "u")


def test_keys_are_absent_without_the_flag_and_on_dense_models(
    emulator_client: httpx.Client,
) -> None:
    c = emulator_client
    assert all("routed_experts_key" not in s for s in _sample(c, _session(c), "a"))
    dense = _session(c, TINY)
    flagged = _sample(c, dense, "b", return_routed_experts=True)
    assert all("routed_experts_key" not in s for s in flagged)


def test_unusable_keys_fail_the_operation_as_documented(
    emulator_client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = emulator_client
    sid = _session(c)
    seq = _sample(c, sid, "s", return_routed_experts=True)[0]
    key = seq["routed_experts_key"]
    fb = "forward-backward"
    assert "no routed experts" in _failure(c, sid, fb, _training_sample(seq, "rex-made-up"), "u")
    # Another API key's: reported like an unknown one.
    other = {"Authorization": f"Bearer {OTHER_KEY}"}
    foreign_sid = _session(c, MOE, **other)
    path = f"/v1/rl/training-sessions/{foreign_sid}/operations/{fb}"
    r = c.post(path, json=_training_sample(seq, key), headers={**other, "Idempotency-Key": "f"})
    assert r.status_code == 200, r.text
    done = wait_until_terminal(lambda: c.get(f"{path}/{r.json()['id']}", headers=other).json(),
                               timeout_s=120.0, what=path)  # fmt: skip
    assert done["status"] == FAILED and done["error"]["code"] == INVALID_INPUT, done
    assert "no routed experts" in done["error"]["message"]
    # Too short: a sample longer than the sampled sequence plus one token.
    long = PROMPT + seq["tokens"] + [1, 2, 3]
    body = ce_body(long[:-1], long[1:], [1.0] * (len(long) - 1))
    body["samples"][0]["routed_experts_key"] = key
    assert "must cover the entire sample" in _failure(c, sid, fb, body, "l")
    # All but the final token is enough.
    one_more = PROMPT + seq["tokens"] + [1]
    body = ce_body(one_more[:-1], one_more[1:], [1.0] * (len(one_more) - 1))
    body["samples"][0]["routed_experts_key"] = key
    run_kind(c, sid, fb, body, "m")
    # A session of another base model (dense, the same vocabulary): another model's routing.
    dense = _session(c, DENSE_SAME_VOCABULARY)
    assert "routing of" in _failure(c, dense, fb, _training_sample(seq, key), "d")
    # Expired an hour after its sample.
    later = _store.clock() + ROUTED_EXPERTS_TTL_S + 1
    monkeypatch.setattr(_store, "clock", lambda: later)
    assert "expired" in _failure(c, sid, fb, _training_sample(seq, key), "e")


def test_an_empty_key_is_refused_at_once(emulator_client: httpx.Client) -> None:
    c = emulator_client
    sid = _session(c)
    body = ce_body([1, 2], [2, 3], [1.0, 1.0])
    body["samples"][0]["routed_experts_key"] = ""
    r = submit_kind(c, sid, "forward-backward", body, "x")
    assert r.status_code == 400, r.text
    assert r.json()["error"]["param"] == "samples[0].routed_experts_key"


def test_keys_are_kept_with_the_state_across_a_restart(
    emulator_app_factory: Any, state_dir: Any
) -> None:
    first = emulator_app_factory(state_dir=state_dir)
    with emulator_test_client(first) as c:
        sid = _session(c)
        seq = _sample(c, sid, "s", return_routed_experts=True)[0]
    first.emulator.close()
    second = emulator_app_factory(state_dir=state_dir)
    with emulator_test_client(second) as c:
        fb = run_kind(c, sid, "forward-backward", _training_sample(seq, seq["routed_experts_key"]),
                      "after-restart")  # fmt: skip
    np.testing.assert_allclose(_logprobs(fb)[len(PROMPT) - 1 :], seq["logprobs"], atol=1e-5)
