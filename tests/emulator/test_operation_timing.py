"""The emulator's operation timing (`--timing`): the realistic model grows with the work, gives
the figure derived by hand for a real model, and holds each operation from its start, the
operations of a session one after another (`/_emulator/operations/{id}` shows it); `fixed MS`
is `--op-latency-ms`; the CLI choice, and the served process's GIL switch interval. Lower
bounds the emulator guarantees are checked, never how fast anything ran."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Coroutine
from typing import Any

import pytest
from _emulator_bodies import fb_body, get_json, new_session, submit, wait_operation
from emulator_harness import COMPLETED, emulator_test_client, wait_until_terminal
from together_rl_emulator import __main__ as command_line
from together_rl_emulator.__main__ import parse_args
from together_rl_emulator.checking._simple_requests import default_sampler_settings
from together_rl_emulator.compute._sampler import Sampler
from together_rl_emulator.cost import OperationWork, Timing
from together_rl_emulator.service import KINDS

QWEN = "Qwen/Qwen3-8B"
REALISTIC = Timing("realistic")


def seconds(kind: str, model: str = QWEN, **work: int) -> float:
    return REALISTIC.predicted_seconds(model, KINDS[kind].seconds, OperationWork(**work))


def test_the_realistic_model_is_monotone_in_the_work() -> None:
    tokens = [seconds("forward-backward", input_tokens=n) for n in (0, 512, 4096, 131072)]
    assert tokens == sorted(tokens) and tokens[0] < tokens[-1]
    outputs = [seconds("sample", output_tokens=n, sequences=8) for n in (8, 512, 4096)]
    assert outputs == sorted(outputs) and outputs[0] < outputs[-1]
    prompts = [seconds("sample", input_tokens=n, output_tokens=64, sequences=8) for n in (0, 10**5)]
    assert prompts[0] < prompts[1]
    sizes = [seconds("forward-backward", m, input_tokens=4096) for m in ("emulator/tiny-1k", QWEN)]
    assert sizes[0] < sizes[1]


def test_the_figure_derived_for_a_real_model() -> None:
    """A forward-backward over 64 x 2048 tokens on Qwen3-8B (8.2e9 parameters): 6 N FLOPs per
    token at 40 % of the B200's 2.25 PFLOP/s dense BF16, plus 1 ms: 7.17 s."""
    flops = 64 * 2048 * 6 * 8.2e9
    assert seconds("forward-backward", input_tokens=64 * 2048) == pytest.approx(
        flops / (0.40 * 2.25e15) + 0.001
    )
    assert seconds("forward-backward", input_tokens=64 * 2048) == pytest.approx(7.166, abs=1e-3)


def test_fixed_and_none_hold_from_the_post() -> None:
    assert (
        Timing("fixed", 250).predicted_seconds(
            QWEN, KINDS["sample"].seconds, OperationWork(0, 10**6, 1)
        )
        == 0.25
    )
    assert Timing.parse("fixed 250") == Timing.parse(["fixed", "250"]) == Timing("fixed", 250)
    assert Timing().completes_at(10.0, 12.0, 0.0) == 10.0
    assert REALISTIC.completes_at(10.0, 12.0, 0.5) == 12.5  # from the start


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], Timing()),
        (["--timing", "realistic"], REALISTIC),
        (["--timing", "fixed", "40"], Timing("fixed", 40)),
        (["--op-latency-ms", "40"], Timing("fixed", 40)),
        (["--timing", "none"], Timing()),
    ],
)
def test_the_timing_is_chosen_at_start(argv: list[str], expected: Timing) -> None:
    assert parse_args(argv).timing == expected


@pytest.mark.parametrize(
    "argv",
    [
        ["--timing", "fast"],
        ["--timing", "fixed"],
        ["--timing", "fixed", "-3"],
        ["--timing", "none", "3"],
        ["--timing", "realistic", "--op-latency-ms", "5"],
    ],
)
def test_a_bad_timing_is_refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(argv)
    assert "timing" in capsys.readouterr().err


def test_the_served_emulator_takes_the_gil_from_its_worker_sooner(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`together-rl-emulator` serves with a shorter switch interval than CPython's 5 ms, so a GET
    is not held up by the worker computing the next operation; the interval is its process's."""
    served: list[float] = []

    def serve(coroutine: Coroutine[Any, Any, None]) -> None:
        coroutine.close()
        served.append(sys.getswitchinterval())

    monkeypatch.setattr(command_line.asyncio, "run", serve)
    before = sys.getswitchinterval()
    try:
        assert command_line.main(["--api-key", "k", "--port", "0"]) == 0
    finally:
        sys.setswitchinterval(before)
    assert served == [pytest.approx(command_line.SWITCH_INTERVAL_S)]
    assert command_line.SWITCH_INTERVAL_S < 0.005


def test_operations_wait_in_order_and_run_as_long_as_their_work(
    emulator_app_factory: Any,
) -> None:
    """Three forward-backwards on Qwen3-8B, submitted at once: the later ones wait PENDING with
    their queue position; each starts once the one before it finished and is held its
    predicted time from its start, the prediction being the model's for its tokens."""
    app = emulator_app_factory(timing="realistic")
    with emulator_test_client(app) as client:
        sid = new_session(client, QWEN)
        bodies = [fb_body(n_samples=8, length=512, seed=i) for i in range(3)]  # 0.22 s each
        ids = [submit(client, sid, body, f"k{i}").json()["id"] for i, body in enumerate(bodies)]
        last = client.get(f"/_emulator/operations/{ids[2]}").json()
        assert last["status"] == "TRAINING_OPERATION_STATUS_PENDING"
        assert last["started_at"] is None and last["queue_position"] >= 1
        for op_id in ids:
            assert wait_operation(client, sid, op_id)["status"] == COMPLETED
        ran = [client.get(f"/_emulator/operations/{op_id}").json() for op_id in ids]
        listed = client.get(f"/_emulator/sessions/{sid}/operations").json()["data"]
    assert listed == ran  # the session's operations, in submission order
    assert all(op["timing"] == "realistic" and op["queue_position"] is None for op in ran)
    for op in ran:
        assert op["predicted_seconds"] == pytest.approx(
            seconds("forward-backward", input_tokens=4096)
        )
        assert op["submitted_at"] <= op["started_at"]
        assert op["finished_at"] - op["started_at"] >= op["predicted_seconds"]
    for before, after in itertools.pairwise(ran):
        assert after["started_at"] >= before["finished_at"]


@pytest.mark.parametrize("timing", ["realistic", "none"])
def test_a_session_loads_its_model_when_it_starts_with_realistic_timing(
    emulator_app_factory: Any, timing: str
) -> None:
    """Realistic: the session's trainer state and its sampler (default settings, every context
    bucket) are built when it starts, so its first operation is not held longer than its
    GPU-model time by the emulator's set-up; the sample then reuses that sampler. Otherwise
    nothing is built before an operation needs it."""
    app = emulator_app_factory(timing=timing)
    emulator = app.emulator
    with emulator_test_client(app) as client:
        sid = new_session(client, QWEN)
        session = emulator.store.get_session(None, sid)
        assert session is not None
        state = emulator.store.trainer(session)  # built when the session started, else now
        sampler = Sampler.shared(state.sampler_params, *default_sampler_settings())
        prepared = len(sampler.contexts) == state.sampler_params.W.shape[0]
        assert prepared == (timing == "realistic"), len(sampler.contexts)
        if not prepared:
            return
        body = {"model_inputs": [{"chunks": [{"encoded_text": {"tokens": [1, 2]}}]}],
                "sampling_params": {"max_tokens": 4, "seed": 1}}  # fmt: skip
        path = f"/v1/rl/training-sessions/{sid}/operations/sample"
        op = client.post(path, json=body, headers={"Idempotency-Key": "s"}).json()
        done = wait_until_terminal(lambda: get_json(client, f"{path}/{op['id']}"), what=path)
        assert done["status"] == COMPLETED
        assert Sampler.shared(state.sampler_params, *default_sampler_settings()) is sampler
