"""The deterministic stream every proof submits, and how its outcome is compared.

Submission `i` of a run with seed `s` is always the same request (samples and loss drawn from
`numpy.random.default_rng((s, i))`), and goes to session `i % n_sessions`. The emulator is
deterministic for a seed, so two runs that submit the same stream in the same per-session order
must end with the same per-session state; a gradient applied twice (or lost) shows up as a
different accumulated-pass count and a different accumulated gradient.

OPTIM-STEP (issue 6): `Step` is where optimizer steps join the stream. When the emulator and the
wrapper expose optim-step, add an `OptimStep` step kind here (e.g. every 16th step of a session),
make `drive_session` submit it, and compare `policy_arrays` (already collected) as well as the
accumulated gradients. Until then the stream is forward-backward only.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import together_rl
from together_rl import Sample, losses
from together_rl_emulator import EmulatorApp

TINY_MODEL = "emulator/tiny-1k"
VOCAB = 1024
WINDOW = 8  # futures a session keeps in flight before collecting the oldest


@dataclass(frozen=True)
class Step:
    """One step of the stream: a forward-backward submission (index into the stream)."""

    index: int
    session: int  # 0-based ordinal of the session (creation order) it goes to


def stream(n_submissions: int, n_sessions: int) -> list[Step]:
    return [Step(i, i % n_sessions) for i in range(n_submissions)]


def submission(index: int, seed: int) -> tuple[list[Sample], losses.Loss]:
    """The request of submission `index`: 1-3 samples, cross-entropy or GRPO."""
    rng = np.random.default_rng((seed, index))
    samples = []
    for _ in range(int(rng.integers(1, 4))):
        prompt = rng.integers(0, VOCAB, int(rng.integers(2, 8)))
        completion = rng.integers(0, VOCAB, int(rng.integers(2, 12)))
        samples.append(
            Sample.from_completion(
                prompt,
                completion,
                logprobs=-7.0 + rng.normal(0.0, 0.2, len(completion)),
                advantages=float(rng.normal()),
            )
        )
    loss: losses.Loss
    if index % 3 == 0:
        loss = losses.CrossEntropy()
    else:
        loss = losses.GRPO(clip_low_threshold=0.8, clip_high_threshold=1.2, beta=0.0)
    return samples, loss


@dataclass
class Outcome:
    """What the client saw: per submission index, its operation id and loss."""

    losses: dict[int, float] = field(default_factory=dict)
    operation_ids: dict[int, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def drive_session(
    session: together_rl.Session,
    steps: list[Step],
    seed: int,
    outcome: Outcome,
    on_submitted: Callable[[Step], None] | None = None,
) -> None:
    """Submit one session's steps in order, keeping `WINDOW` futures in flight, and collect
    every result into `outcome` (an exception is recorded, not raised, so other sessions go on)."""
    in_flight: list[tuple[Step, together_rl.ForwardBackwardFuture]] = []

    def collect_oldest() -> None:
        step, future = in_flight.pop(0)
        try:
            result = future.result(timeout=600)
        except Exception as exc:  # recorded and reported as a loss of this submission
            outcome.errors.append(f"submission {step.index}: {type(exc).__name__}: {exc}")
            return
        outcome.losses[step.index] = result.loss
        outcome.operation_ids[step.index] = result.operation_id

    for step in steps:
        samples, loss = submission(step.index, seed)
        try:
            future = session.forward_backward(samples, loss)
        except Exception as exc:
            outcome.errors.append(f"submission {step.index} (POST): {type(exc).__name__}: {exc}")
            continue
        if on_submitted is not None:
            on_submitted(step)
        in_flight.append((step, future))
        if len(in_flight) >= WINDOW:
            collect_oldest()
    while in_flight:
        collect_oldest()


# ----------------------------------------------------------------------------- final state
Arrays = dict[str, npt.NDArray[np.float64]]


@dataclass
class SessionState:
    accumulated_passes: int
    gradients: Arrays | None
    policy: Arrays


def app_session_states(app: EmulatorApp, session_ids: list[str]) -> list[SessionState]:
    """Per-session state read from an app's store (in-process, exact arrays)."""
    return store_session_states(app.emulator.store, session_ids)


def store_session_states(store: Any, session_ids: list[str]) -> list[SessionState]:
    states = []
    for sid in session_ids:
        row = store.get_session(None, sid)
        assert row is not None, f"session {sid} is missing from the store"
        grads = store.accumulated_gradients(sid)
        policy = store.policy(row).to_arrays()
        states.append(
            SessionState(
                accumulated_passes=row.accumulated_passes,
                gradients=None if grads is None else {k: np.array(v) for k, v in grads.items()},
                policy={k: np.array(v) for k, v in policy.items()},
            )
        )
    return states


@dataclass
class Comparison:
    sessions: int
    max_rel_grad_diff: float
    max_abs_policy_diff: float
    pass_mismatches: list[str]
    loss_mismatches: list[str]

    @property
    def identical(self) -> bool:
        return (
            not self.pass_mismatches
            and not self.loss_mismatches
            and self.max_rel_grad_diff <= 1e-6
            and self.max_abs_policy_diff <= 1e-6
        )


def _rel_diff(a: Arrays | None, b: Arrays | None) -> float:
    if a is None or b is None:
        return 0.0 if a is None and b is None else math.inf
    if set(a) != set(b):
        return math.inf
    worst = 0.0
    for key in a:
        scale = max(float(np.max(np.abs(b[key]), initial=0.0)), 1e-300)
        worst = max(worst, float(np.max(np.abs(a[key] - b[key]), initial=0.0)) / scale)
    return worst


def compare(
    got: list[SessionState], ref: list[SessionState], got_out: Outcome, ref_out: Outcome
) -> Comparison:
    pass_mismatches = [
        f"session {i}: {g.accumulated_passes} passes, fault-free run {r.accumulated_passes}"
        for i, (g, r) in enumerate(zip(got, ref, strict=True))
        if g.accumulated_passes != r.accumulated_passes
    ]
    loss_mismatches = []
    for index, ref_loss in sorted(ref_out.losses.items()):
        loss = got_out.losses.get(index)
        if loss is None or not math.isclose(loss, ref_loss, rel_tol=1e-6, abs_tol=1e-9):
            loss_mismatches.append(f"submission {index}: loss {loss}, fault-free {ref_loss}")
    policy_diff = 0.0
    for g, r in zip(got, ref, strict=True):
        for key in r.policy:
            policy_diff = max(policy_diff, float(np.max(np.abs(g.policy[key] - r.policy[key]))))
    return Comparison(
        sessions=len(got),
        max_rel_grad_diff=max(
            (_rel_diff(g.gradients, r.gradients) for g, r in zip(got, ref, strict=True)),
            default=0.0,
        ),
        max_abs_policy_diff=policy_diff,
        pass_mismatches=pass_mismatches,
        loss_mismatches=loss_mismatches,
    )


def create_sessions(client: together_rl.Client, n_sessions: int) -> list[together_rl.Session]:
    """`n_sessions` sessions on one tiny model resource, created in order (the order fixes each
    session's policy seed, so a reference run gets the same policies)."""
    resources = client.model_resources.create(TINY_MODEL)
    return [client.sessions.create(model_resources_id=resources.id) for _ in range(n_sessions)]


def run_stream(
    client_factory: Callable[[], together_rl.Client],
    n_submissions: int,
    n_sessions: int,
    seed: int,
    on_submitted: Callable[[Step], None] | None = None,
) -> tuple[list[str], Outcome]:
    """Create the sessions, then drive each one from its own thread (own client, so its
    connection pool and retry state are its own). Returns the session ids (creation order)."""
    import threading

    outcome = Outcome()
    with client_factory() as setup:
        session_ids = [s.id for s in create_sessions(setup, n_sessions)]
    steps = stream(n_submissions, n_sessions)
    clients = [client_factory() for _ in range(n_sessions)]
    threads = [
        threading.Thread(
            target=drive_session,
            args=(
                clients[k].session(sid),
                [s for s in steps if s.session == k],
                seed,
                outcome,
                on_submitted,
            ),
            name=f"stream-session-{k}",
        )
        for k, sid in enumerate(session_ids)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for c in clients:
        c.close()
    return session_ids, outcome


def reference_run(
    n_submissions: int, n_sessions: int, seed: int, emulator_seed: int = 0
) -> tuple[list[SessionState], Outcome]:
    """The same stream on a fresh, fault-free in-thread emulator: the expected final state."""
    from ._servers import start_thread_server

    server = start_thread_server(api_keys=["reference-key"], seed=emulator_seed)
    try:
        session_ids, outcome = run_stream(
            lambda: together_rl.Client(api_key="reference-key", base_url=server.base_url),
            n_submissions,
            n_sessions,
            seed,
        )
        return app_session_states(server.app, session_ids), outcome
    finally:
        server.stop()
