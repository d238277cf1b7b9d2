"""Muon over HTTP (in-process): model resources created with `optimizer_config.muon` take
`muon_params` and apply Muon (checked against the tests' reference); each optimizer's params on
the other kind of resources are refused with 400 and nothing queued; a Muon training checkpoint
resumes bit for bit."""

from __future__ import annotations

from typing import Any

import httpx
import numpy as np
import pytest
from _checkpoint_helpers import TRAINING, new_resources, new_session_on, save, stored_state
from _emulator_bodies import assert_schema, stats
from _muon_reference import reference_muon
from _operation_kind_bodies import ce_body, run_kind, submit_kind
from emulator_harness import emulator_test_client
from together_rl_emulator import EmulatorApp
from together_rl_emulator.base._spec import ADAM_DEFAULTS, MUON_DEFAULTS

TOKENS = [5, 17, 300, 42, 7, 999, 12]
MUON = {"learning_rate": 0.03, "momentum": 0.9, "newton_schulz_steps": 4, "weight_decay": 0.01,
        "grad_clip_norm": 0.5,
        "adam": {"learning_rate": 0.05, "beta1": 0.8, "beta2": 0.99, "eps": 1e-8,
                 "weight_decay": 0.02}}  # fmt: skip
ORIGINAL = "MUON_SCALING_STRATEGY_ORIGINAL"


def _muon_resources(client: httpx.Client, strategy: str | None = None) -> str:
    muon = {} if strategy is None else {"scaling_strategy": strategy}
    return str(new_resources(client, optimizer_config={"muon": muon})["id"])


def _error(r: httpx.Response, param: str) -> str:
    assert r.status_code == 400, r.text
    assert r.json()["error"]["param"] == param, r.json()
    message: str = r.json()["error"]["message"]
    return message


@pytest.mark.parametrize("strategy", [None, ORIGINAL])
def test_muon_step_matches_the_reference(emulator_app: EmulatorApp, strategy: str | None) -> None:
    """Two steps on a Muon session: the weights equal the reference's (Muon on the 2-D
    parameters W and E, AdamW with `muon_params.adam` on b), clipping exercised."""
    with emulator_test_client(emulator_app) as client:
        sid = new_session_on(client, _muon_resources(client, strategy))["id"]
        store = emulator_app.emulator.store
        initial = store.trainer(store.get_session(None, sid)).params.to_arrays()
        params = {k: v.copy() for k, v in initial.items()}
        grads = []
        for step in range(2):
            body = ce_body(TOKENS[:-1], TOKENS[1:], [1.0 + step] * 6)
            run_kind(client, sid, "forward-backward", body, f"fb{step}")
            state = store.trainer(store.get_session(None, sid))
            grads.append({k: g.copy() for k, g in state.grads.items()})
            op = run_kind(client, sid, "optim-step", {"muon_params": MUON}, f"step{step}")
            assert_schema(op, "OptimStepOperation")
            assert op["output"]["step"] == str(step + 1)
        after = store.trainer(store.get_session(None, sid))

    norm = np.sqrt(sum(float((g**2).sum()) for g in grads[0].values()))
    assert norm > MUON["grad_clip_norm"]  # the clipping is exercised
    adam = {k: v for k, v in MUON["adam"].items()}  # type: ignore[union-attr]
    muon = {k: v for k, v in MUON.items() if k != "adam"}
    expected = reference_muon(params, grads, muon, adam, "original" if strategy else "match")
    for key, p in expected.items():
        np.testing.assert_allclose(after.params.to_arrays()[key], p, rtol=1e-6, atol=1e-12)
    assert set(after.muon_momentum) == {"W", "E"}


@pytest.mark.parametrize("body", [{}, {"muon_params": {}}])
def test_muon_params_default_to_the_spec_defaults(emulator_app: EmulatorApp, body: Any) -> None:
    """A step without settings on resources whose scaling strategy is UNSPECIFIED: the spec's
    defaults of `MuonParams` and `AdamParams`, MATCH_ADAM scaling."""
    with emulator_test_client(emulator_app) as client:
        rid = _muon_resources(client, "MUON_SCALING_STRATEGY_UNSPECIFIED")
        sid = new_session_on(client, rid)["id"]
        store = emulator_app.emulator.store
        run_kind(client, sid, "forward-backward", ce_body(TOKENS[:-1], TOKENS[1:], [1.0] * 6), "f")
        state = store.trainer(store.get_session(None, sid))
        params = {k: v.copy() for k, v in state.params.to_arrays().items()}
        grads = {k: g.copy() for k, g in state.grads.items()}
        run_kind(client, sid, "optim-step", body, "s")
        after = store.trainer(store.get_session(None, sid)).params.to_arrays()
    expected = reference_muon(params, [grads], MUON_DEFAULTS, ADAM_DEFAULTS, "match")
    for key, p in expected.items():
        np.testing.assert_allclose(after[key], p, rtol=1e-6, atol=1e-12)


def test_each_optimizer_refuses_the_other_ones_params_alone(emulator_client: httpx.Client) -> None:
    c = emulator_client
    adam_sid = new_session_on(c, new_resources(c)["id"])["id"]
    muon_sid = new_session_on(c, _muon_resources(c))["id"]
    message = _error(submit_kind(c, adam_sid, "optim-step", {"muon_params": {}}, "m"),
                     "muon_params")  # fmt: skip
    assert "optimizer_config.muon" in message
    message = _error(submit_kind(c, muon_sid, "optim-step", {"adam_params": {}}, "a"),
                     "adam_params")  # fmt: skip
    assert "muon_params.adam" in message
    _error(submit_kind(c, muon_sid, "optim-step", {"muon_params": {"momentum": 1.0}}, "x"),
           "muon_params.momentum")  # fmt: skip
    _error(submit_kind(c, muon_sid, "optim-step", {"muon_params": {"newton_schulz_steps": 0}},
                       "n"), "muon_params.newton_schulz_steps")  # fmt: skip
    _error(submit_kind(c, muon_sid, "optim-step", {"muon_params": {"adam": {"beta1": 1.0}}}, "y"),
           "muon_params.adam.beta1")  # fmt: skip
    assert "optim-step" not in stats(c)["operations_created"]  # nothing was queued
    # The same keys work with a body the resources take (no idempotency record was left).
    run_kind(c, muon_sid, "optim-step", {"muon_params": {}}, "a")
    run_kind(c, adam_sid, "optim-step", {"adam_params": {}}, "m")
    # Both params objects, as the published example sends: each resource takes its own.
    both = {"adam_params": {}, "muon_params": {}}
    run_kind(c, muon_sid, "optim-step", both, "b")
    run_kind(c, adam_sid, "optim-step", both, "b")


def _trajectory(client: httpx.Client, sid: str, first: int, tag: str) -> list[Any]:
    out = []
    for step in range(first, first + 2):
        body = ce_body(TOKENS[:-1], TOKENS[1:], [1.0 + step] * 6)
        fb = run_kind(client, sid, "forward-backward", body, f"{tag}-fb-{step}")
        opt = run_kind(client, sid, "optim-step", {"muon_params": MUON}, f"{tag}-opt-{step}")
        out.append((fb["output"]["loss"], opt["output"]["step"]))
    return out


def test_a_muon_training_checkpoint_resumes_bit_for_bit(
    emulator_app: EmulatorApp, emulator_client: httpx.Client
) -> None:
    """Checkpoint after two Muon steps, resume on new Muon resources, two more steps: the
    losses and the final state (weights, momentum buffers, Adam moments) equal the
    uninterrupted run's exactly."""
    c = emulator_client
    sid = new_session_on(c, _muon_resources(c))["id"]
    _trajectory(c, sid, 0, "a")
    checkpoint = save(c, sid, TRAINING, "ckpt")
    uninterrupted = _trajectory(c, sid, 2, "a")
    final = save(c, sid, TRAINING, "final")
    resumed_sid = new_session_on(c, _muon_resources(c), resume_from_checkpoint_id=checkpoint["id"])
    resumed = _trajectory(c, resumed_sid["id"], 2, "b")
    resumed_final = save(c, resumed_sid["id"], TRAINING, "final")
    assert resumed == uninterrupted
    state = stored_state(emulator_app, final["id"])
    assert stored_state(emulator_app, resumed_final["id"]) == state
    assert b"muon/W" in state and b"muon/E" in state  # the momentum buffers are saved
