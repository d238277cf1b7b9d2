"""The deterministic stream every proof submits, and how its outcome is compared.

The stream interleaves four operation kinds per session: forward-backward submissions, an
optimizer step after every `optim_every`-th forward-backward of the session, and a weights-sync
followed by a training checkpoint after every `sync_every`-th optimizer step. Forward-backward
`i` of a run with seed `s` is always the same request (samples and loss drawn from
`numpy.random.default_rng((s, i))`) and goes to session `i % n_sessions`. The emulator is
deterministic for its seed, so two runs that submit the same stream in the same per-session
order must end with the same per-session state: trainer weights, sampler weights, Adam moments,
step, weights version, accumulated gradients and passes. A forward-backward applied twice (or
lost) changes the gradient the next optimizer step uses, hence the weights; an optimizer step
applied twice (or lost) changes the step and the weights; a future bound to the wrong operation
returns another loss / step / version.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
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
FORWARD_BACKWARD, OPTIM_STEP, WEIGHTS_SYNC = "forward-backward", "optim-step", "weights-sync"
TRAINING_CHECKPOINT = "training-checkpoint"
KINDS = (FORWARD_BACKWARD, OPTIM_STEP, WEIGHTS_SYNC, TRAINING_CHECKPOINT)
OPTIM_EVERY = 6  # an optimizer step after every 6th forward-backward of a session
SYNC_EVERY = 3  # a weights-sync after every 3rd optimizer step of a session
# Large enough that one step more or less (or a doubled gradient) moves weights by far more than
# the 1e-6 tolerance; Adam moves each weight by about this much per step.
LEARNING_RATE = 1e-3


@dataclass(frozen=True)
class Step:
    """One operation of the stream."""

    kind: str  # one of KINDS
    index: int  # forward-backward: the submission index; others: their ordinal in the stream
    session: int  # 0-based ordinal of the session (creation order) it goes to


def stream(
    n_submissions: int, n_sessions: int, optim_every: int = OPTIM_EVERY,
    sync_every: int = SYNC_EVERY,
) -> list[Step]:  # fmt: skip
    """`n_submissions` forward-backwards with the optimizer steps and weights-syncs between them
    (`optim_every` / `sync_every` <= 0: none)."""
    steps: list[Step] = []
    fbs, optims = Counter[int](), Counter[int]()
    ordinal = Counter[str]()
    for i in range(n_submissions):
        k = i % n_sessions
        steps.append(Step(FORWARD_BACKWARD, i, k))
        fbs[k] += 1
        if optim_every > 0 and fbs[k] % optim_every == 0:
            steps.append(Step(OPTIM_STEP, ordinal[OPTIM_STEP], k))
            ordinal[OPTIM_STEP] += 1
            optims[k] += 1
            if sync_every > 0 and optims[k] % sync_every == 0:
                for kind in (WEIGHTS_SYNC, TRAINING_CHECKPOINT):
                    steps.append(Step(kind, ordinal[kind], k))
                    ordinal[kind] += 1
    return steps


def count_by_kind(steps: list[Step]) -> dict[str, int]:
    counts = Counter(s.kind for s in steps)
    return {kind: counts.get(kind, 0) for kind in KINDS}


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
    """What the client saw, per step: the result value (forward-backward: loss; optim-step: the
    new step; weights-sync: the new weights version) and the operation id."""

    results: dict[tuple[str, int], float] = field(default_factory=dict)
    operation_ids: dict[tuple[str, int], str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def returned_by_kind(self) -> dict[str, int]:
        counts = Counter(kind for kind, _ in self.results)
        return {kind: counts.get(kind, 0) for kind in KINDS}


def _submit(session: together_rl.Session, step: Step, seed: int) -> Any:
    if step.kind == FORWARD_BACKWARD:
        samples, loss = submission(step.index, seed)
        return session.forward_backward(samples, loss)
    if step.kind == OPTIM_STEP:
        return session.optim_step(learning_rate=LEARNING_RATE)
    if step.kind == TRAINING_CHECKPOINT:
        return session.save_checkpoint()
    return session.sync_weights()


def _value(step: Step, result: Any) -> float:
    if step.kind == FORWARD_BACKWARD:
        return float(result.loss)
    if step.kind in (OPTIM_STEP, TRAINING_CHECKPOINT):
        return float(result.step)
    return float(result.weights_version)


def drive_session(
    session: together_rl.Session,
    steps: list[Step],
    seed: int,
    outcome: Outcome,
    on_submitted: Callable[[Step], None] | None = None,
) -> None:
    """Submit one session's steps in order, keeping `WINDOW` futures in flight, and collect
    every result into `outcome` (an exception is recorded, not raised, so other sessions go on)."""
    in_flight: list[tuple[Step, Any]] = []

    def collect_oldest() -> None:
        step, future = in_flight.pop(0)
        try:
            result = future.result(timeout=600)
        except Exception as exc:  # recorded and reported as a loss of this step
            with outcome.lock:
                outcome.errors.append(f"{step.kind} {step.index}: {type(exc).__name__}: {exc}")
            return
        with outcome.lock:
            outcome.results[(step.kind, step.index)] = _value(step, result)
            outcome.operation_ids[(step.kind, step.index)] = result.operation_id

    for step in steps:
        try:
            future = _submit(session, step, seed)
        except Exception as exc:
            with outcome.lock:
                outcome.errors.append(
                    f"{step.kind} {step.index} (POST): {type(exc).__name__}: {exc}"
                )
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
    gradients: Arrays | None  # accumulated since the last optimizer step (None: no pass)
    policy: Arrays  # the trainer weights
    step: int = 0
    weights_version: int = 0
    others: Arrays = field(default_factory=dict)  # sampler weights ("sampler/") and Adam moments


def app_session_states(app: EmulatorApp, session_ids: list[str]) -> list[SessionState]:
    """Per-session state read from an app's store (in-process, exact arrays)."""
    return store_session_states(app.emulator.store, session_ids)


def store_session_states(store: Any, session_ids: list[str]) -> list[SessionState]:
    states = []
    for sid in session_ids:
        row = store.get_session(None, sid)
        assert row is not None, f"session {sid} is missing from the store"
        trainer = store.trainer(row)
        grads = trainer.grads if row.accumulated_passes else None
        arrays = trainer.to_arrays()
        states.append(
            SessionState(
                accumulated_passes=row.accumulated_passes,
                gradients=None if grads is None else {k: np.array(v) for k, v in grads.items()},
                policy={k: np.array(v) for k, v in trainer.params.to_arrays().items()},
                step=int(trainer.step),
                weights_version=int(trainer.weights_version),
                others={
                    k: np.array(v, dtype=np.float64)
                    for k, v in arrays.items()
                    if k.startswith(("sampler/", "adam/"))
                },
            )
        )
    return states


@dataclass
class Comparison:
    sessions: int
    max_rel_grad_diff: float
    max_abs_policy_diff: float  # trainer weights
    max_abs_other_diff: float  # sampler weights and Adam moments
    counter_mismatches: list[str]  # accumulated passes, step, weights version
    result_mismatches: list[str]  # per step: loss / step / weights version the future returned

    @property
    def identical(self) -> bool:
        return (
            not self.counter_mismatches
            and not self.result_mismatches
            and self.max_rel_grad_diff <= 1e-6
            and self.max_abs_policy_diff <= 1e-6
            and self.max_abs_other_diff <= 1e-6
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


def _abs_diff(a: Arrays, b: Arrays) -> float:
    if set(a) != set(b) or any(a[k].shape != b[k].shape for k in b):
        return math.inf
    return max((float(np.max(np.abs(a[k] - b[k]), initial=0.0)) for k in b), default=0.0)


def compare(
    got: list[SessionState], ref: list[SessionState], got_out: Outcome, ref_out: Outcome
) -> Comparison:
    counters = []
    for i, (g, r) in enumerate(zip(got, ref, strict=True)):
        for name in ("accumulated_passes", "step", "weights_version"):
            if getattr(g, name) != getattr(r, name):
                counters.append(
                    f"session {i}: {name} {getattr(g, name)}, fault-free run {getattr(r, name)}"
                )
    results = []
    for key, ref_value in sorted(ref_out.results.items()):
        value = got_out.results.get(key)
        if value is None or not math.isclose(value, ref_value, rel_tol=1e-6, abs_tol=1e-9):
            results.append(f"{key[0]} {key[1]}: {value}, fault-free {ref_value}")
    results += [f"{k[0]} {k[1]}: not in the fault-free run" for k in got_out.results.keys()
                - ref_out.results.keys()]  # fmt: skip
    pairs = list(zip(got, ref, strict=True))
    return Comparison(
        sessions=len(got),
        max_rel_grad_diff=max((_rel_diff(g.gradients, r.gradients) for g, r in pairs), default=0.0),
        max_abs_policy_diff=max((_abs_diff(g.policy, r.policy) for g, r in pairs), default=0.0),
        max_abs_other_diff=max((_abs_diff(g.others, r.others) for g, r in pairs), default=0.0),
        counter_mismatches=counters,
        result_mismatches=results,
    )


def create_sessions(client: together_rl.Client, n_sessions: int) -> list[together_rl.Session]:
    """`n_sessions` sessions, each on its own tiny full-weight model resource (which takes one
    session), created in order (the order fixes each session's policy seed, so a reference run
    gets the same policies)."""
    return [
        client.sessions.create(model_resources_id=client.model_resources.create(TINY_MODEL).id)
        for _ in range(n_sessions)
    ]


def run_stream(
    client_factory: Callable[[], together_rl.Client],
    steps: list[Step],
    n_sessions: int,
    seed: int,
    on_submitted: Callable[[Step], None] | None = None,
) -> tuple[list[str], Outcome]:
    """Create the sessions, then drive each one from its own thread (own client, so its
    connection pool and retry state are its own). Returns the session ids (creation order)."""
    outcome = Outcome()
    with client_factory() as setup:
        session_ids = [s.id for s in create_sessions(setup, n_sessions)]
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
    steps: list[Step], n_sessions: int, seed: int, emulator_seed: int = 0
) -> tuple[list[SessionState], Outcome]:
    """The same stream on a fresh, fault-free in-thread emulator: the expected final state."""
    from together_rl_emulator import serve_emulator

    server = serve_emulator(api_keys=["reference-key"], seed=emulator_seed)
    try:
        session_ids, outcome = run_stream(
            lambda: together_rl.Client(api_key="reference-key", base_url=server.base_url),
            steps,
            n_sessions,
            seed,
        )
        return app_session_states(server.app, session_ids), outcome
    finally:
        server.stop()
