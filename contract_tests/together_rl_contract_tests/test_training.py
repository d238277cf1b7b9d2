"""Training semantics, observed through forward-only log-probs: optim-step applies
the passes accumulated before it (in submission order) and clears them; custom gradients
accumulate exactly like a built-in loss with the same gradient.

Every test uses a fresh session and the linear optimizer step of ``_training`` (AdamW with
beta1 = beta2 = 0 and a huge eps: a plain gradient step, linear in the accumulated gradient and
independent of earlier steps), so that "how far did the policy move" compares across steps of one
session. Sessions of one server start from different weights, so comparisons never span two
sessions.
"""

from __future__ import annotations

from typing import Any

import pytest

from together_rl_contract_tests import _training as t
from together_rl_contract_tests._http import CUSTOM_FORWARD_BACKWARD, FORWARD_BACKWARD, TargetClient

OPTIM = "POST /rl/training-sessions/{session_id}/operations/optim-step"
CUSTOM = "POST /rl/training-sessions/{session_id}/operations/custom-forward-backward"
X, Y = t.SEQUENCE_X, t.SEQUENCE_Y
#: Relative tolerance of first-order comparisons (two passes = twice one pass, ...).
LINEAR_RTOL = 0.15


def _fb(*sequences: tuple[int, ...]) -> tuple[str, dict[str, Any]]:
    return (FORWARD_BACKWARD, t.ce_body(list(sequences)))


@pytest.mark.operation(OPTIM)
def test_optim_step_changes_forward_logprobs(
    client: TargetClient, fresh_session: dict[str, Any]
) -> None:
    session_id = fresh_session["id"]
    before = t.forward_logprobs(client, session_id, [X])[0]
    t.submit_all(client, session_id, [_fb(X)])
    accumulated = t.forward_logprobs(client, session_id, [X])[0]
    assert accumulated == pytest.approx(before, abs=1e-6), (
        "accumulating gradients must not change the policy before an optim-step"
    )
    t.train_step(client, session_id, [])
    after = t.forward_logprobs(client, session_id, [X])[0]
    assert sum(after) > sum(before) + 1e-3, (
        f"a cross-entropy step on X must raise log p(X): {sum(before)} -> {sum(after)}"
    )


@pytest.mark.operation(OPTIM)
def test_optim_step_applies_every_pass_before_it_then_clears_them(
    client: TargetClient, fresh_session: dict[str, Any]
) -> None:
    """fb, optim moves log p(X) by d; fb, fb, optim (submitted back to back) by 2d; an optim-step
    with nothing accumulated by 0. A worker that reorders, or an optimizer that keeps the
    gradients it applied, gives 1d or 3d, and a non-zero last step."""
    session_id = fresh_session["id"]
    lp0 = t.total(t.forward_logprobs(client, session_id, [X]))
    t.train_step(client, session_id, [_fb(X)])
    lp1 = t.total(t.forward_logprobs(client, session_id, [X]))
    t.train_step(client, session_id, [_fb(X), _fb(X)])
    lp2 = t.total(t.forward_logprobs(client, session_id, [X]))
    t.train_step(client, session_id, [])
    lp3 = t.total(t.forward_logprobs(client, session_id, [X]))
    one, two, none = lp1 - lp0, lp2 - lp1, lp3 - lp2
    assert one > 1e-3, f"one pass + optim-step did not raise log p(X): {one}"
    assert two / one == pytest.approx(2.0, rel=LINEAR_RTOL), (
        f"two passes moved log p(X) {two / one:.3f}x as far as one pass (expected 2x): "
        "an optim-step must apply every pass submitted before it, and only those"
    )
    assert abs(none) <= 0.02 * one, (
        f"an optim-step with nothing accumulated moved log p(X) by {none} "
        f"({none / one:.3f}x one pass): the previous step did not clear its gradients"
    )


@pytest.mark.operation(OPTIM)
def test_passes_of_different_data_are_both_applied(
    client: TargetClient, fresh_session: dict[str, Any]
) -> None:
    """fb(X), fb(Y), optim: both log p(X) and log p(Y) rise (Y's pass was not left behind)."""
    session_id = fresh_session["id"]
    before = t.forward_logprobs(client, session_id, [X, Y])
    t.train_step(client, session_id, [_fb(X), _fb(Y)])
    after = t.forward_logprobs(client, session_id, [X, Y])
    rise_x = sum(after[0]) - sum(before[0])
    rise_y = sum(after[1]) - sum(before[1])
    assert rise_x > 1e-3 and rise_y > 1e-3, (rise_x, rise_y)
    assert min(rise_x, rise_y) > 0.25 * max(rise_x, rise_y), (rise_x, rise_y)


@pytest.mark.operation(CUSTOM)
def test_custom_gradient_accumulates_like_cross_entropy(
    client: TargetClient, fresh_session: dict[str, Any]
) -> None:
    """Cross-entropy with weights w has dLoss/dlogp = -w. In one session:

    1. CE(w) + custom(+w) cancel exactly: the optim-step leaves the policy unchanged;
    2. CE(w) then an optim-step moves the log-probs by some d_ce (per token);
    3. custom(-w) then an optim-step moves them by d_custom = d_ce (to first order).
    """
    session_id = fresh_session["id"]
    weights = [1.0, 0.5, 2.0, 1.0, 0.0, 1.0, 1.5]
    ce = (FORWARD_BACKWARD, t.ce_body([X], [weights]))
    lp0 = t.forward_logprobs(client, session_id, [X])[0]
    t.train_step(client, session_id, [ce, (CUSTOM_FORWARD_BACKWARD, t.custom_body(X, weights))])
    lp1 = t.forward_logprobs(client, session_id, [X])[0]
    t.train_step(client, session_id, [ce])
    lp2 = t.forward_logprobs(client, session_id, [X])[0]
    negated = [-w for w in weights]
    t.train_step(client, session_id, [(CUSTOM_FORWARD_BACKWARD, t.custom_body(X, negated))])
    lp3 = t.forward_logprobs(client, session_id, [X])[0]
    d_cancel = [b - a for a, b in zip(lp0, lp1, strict=True)]
    d_ce = [b - a for a, b in zip(lp1, lp2, strict=True)]
    d_custom = [b - a for a, b in zip(lp2, lp3, strict=True)]
    scale = max(abs(d) for d in d_ce)
    assert sum(d_ce) > 1e-3, f"a weighted CE step did not raise log p(X): {d_ce}"
    assert max(abs(d) for d in d_cancel) <= 0.02 * scale, (
        f"CE(w) + custom(+w) should cancel exactly, but the step moved the policy: {d_cancel}"
    )
    assert d_custom == pytest.approx(d_ce, abs=LINEAR_RTOL * scale), (
        f"custom(-w) moved log-probs by {d_custom}, CE(w) by {d_ce}"
    )
