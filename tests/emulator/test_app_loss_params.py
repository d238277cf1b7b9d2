"""A params object of another loss in `loss` is accepted and ignored, for every loss type: the
operation's result equals that of the same request without it (the official SDK says the live
server drops it silently; the user's document sends five at once)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from _emulator_bodies import LOSS_TYPES, fb_body, new_session, run_op

# A params object of every loss, with values that are not the defaults (so reading one would
# change the result). GRPO's beta > 0 would also require reference_logprobs if it were read.
FOREIGN_PARAMS: dict[str, dict[str, Any]] = {
    "cross_entropy_params": {},
    "grpo_params": {"clip_low_threshold": 0.5, "clip_high_threshold": 1.5, "beta": 0.3},
    "ppo_params": {"clip_low_threshold": 0.5, "clip_high_threshold": 1.5},
    "cispo_params": {"clip_low_threshold": 0.5, "clip_high_threshold": 3.0},
    "dro_params": {"beta": 0.2},
    "dppo_params": {"delta_low": 0.3, "delta_high": 0.3},
}


def _with_foreign_params(body: dict[str, Any]) -> dict[str, Any]:
    own = body["loss"]
    foreign = {key: value for key, value in FOREIGN_PARAMS.items() if key not in own}
    return {**body, "loss": {**own, **foreign}}


@pytest.mark.parametrize("loss_type", LOSS_TYPES)
def test_foreign_params_objects_do_not_change_the_result(
    emulator_client: httpx.Client, loss_type: str
) -> None:
    c = emulator_client
    session = new_session(c)
    flags = {"forward_only": True, "return_loss_fn_outputs": True}
    plain = fb_body(loss_type, n_samples=2, length=5, **flags)
    crowded = _with_foreign_params(plain)
    assert len(crowded["loss"]) > len(plain["loss"])  # every other loss's object is there
    first = run_op(c, session, plain, "plain")
    second = run_op(c, session, crowded, "crowded")
    assert first["status"] == second["status"] == "TRAINING_OPERATION_STATUS_COMPLETED", second
    assert second["output"] == first["output"]
    # Backward too: the same gradient is accumulated (the stats' norm grows by equal steps).
    train = {**plain, "forward_only": False}
    run_op(c, session, train, "train-plain")
    after_plain = c.get("/_emulator/stats").json()["sessions"][session]
    run_op(c, session, _with_foreign_params(train), "train-crowded")
    after_both = c.get("/_emulator/stats").json()["sessions"][session]
    assert after_both["accumulated_passes"] == 2
    assert after_both["accumulated_grad_norm"] == pytest.approx(
        2 * after_plain["accumulated_grad_norm"], rel=1e-12
    )
