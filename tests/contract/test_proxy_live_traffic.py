"""The proxy in front of the emulator: the official SDK and the GRPO toy loop through it give
0 violations and a cassette; replaying the toy loop's cassette with the emulator stopped prints
the same results; the key appears in no output, report or cassette."""

from __future__ import annotations

import importlib.util
import io
import re
import stat
import sys
import uuid
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from together_rl_contract_tests.proxy._in_thread import proxy_in_thread, replay_in_thread
from together_rl_contract_tests.proxy._report import write_junit, write_markdown
from together_rl_emulator import ThreadServer, serve_emulator

together = pytest.importorskip("together")
from together import Together  # noqa: E402

KEY = f"sk-proxy-test-{uuid.uuid4().hex}"
TINY = "emulator/tiny-1k"
COMPLETED = "TRAINING_OPERATION_STATUS_COMPLETED"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "grpo_toy.py"
#: The toy loop's only line that depends on the clock.
WALL_TIME = re.compile(r" in \d+\.\d s$", re.MULTILINE)


@pytest.fixture
def emulator() -> Iterator[ThreadServer]:
    server = serve_emulator(api_keys=[KEY], seed=0)
    yield server
    server.stop()


def _load_toy() -> ModuleType:
    spec = importlib.util.spec_from_file_location("grpo_toy", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["grpo_toy"] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def _run_toy(base_url: str, plot: Path) -> tuple[str, str]:
    """The loop's printed output, and its reward plot."""
    argv = ["--base-url", base_url, "--api-key", KEY, "--steps", "3", "--group-size", "8",
            "--plot", str(plot)]  # fmt: skip
    out = io.StringIO()
    with redirect_stdout(out):
        assert _load_toy().main(argv) == 0
    return out.getvalue(), plot.read_text()


def _assert_no_key(*texts: str) -> None:
    for text in texts:
        assert KEY not in text
        assert KEY[len("sk-") :] not in text


def _reports(proxy: Any, tmp_path: Path) -> tuple[str, str]:
    write_markdown(proxy.monitor, tmp_path / "proxy.md", "emulator")
    write_junit(proxy.monitor, tmp_path / "proxy.junit.xml")
    return (tmp_path / "proxy.md").read_text(), (tmp_path / "proxy.junit.xml").read_text()


def _wait(sdk: Together, session_id: str, operation_id: str) -> Any:
    for _ in range(10_000):
        op = sdk.post_training.operations.retrieve_forward_backward(
            operation_id, session_id=session_id
        )
        if op.status in (COMPLETED, "TRAINING_OPERATION_STATUS_FAILED"):
            return op
    raise AssertionError("the operation never finished")


def _fb_body() -> dict[str, Any]:
    def tensor(data: list[float], dtype: str = "float32") -> dict[str, Any]:
        return {"data": data, "dtype": dtype}

    samples = [
        {
            "model_input": {"chunks": [{"encoded_text": {"tokens": tokens[:-1]}}]},
            "loss_fn_inputs": {
                "target_tokens": tensor([float(t) for t in tokens[1:]], "int64"),
                "logprobs": tensor([-1.5] * (len(tokens) - 1)),
                "advantages": tensor([1.0, -0.5, 0.25][: len(tokens) - 1]),
            },
        }
        for tokens in ([5, 17, 254, 981], [3, 640, 12])
    ]
    return {"samples": samples, "loss": {"type": "LOSS_TYPE_IMPORTANCE_SAMPLING"}}


def test_official_sdk_through_the_proxy(emulator: ThreadServer, tmp_path: Path) -> None:
    cassette = tmp_path / "sdk.jsonl"
    with proxy_in_thread(emulator.base_url, record=cassette) as proxy:
        sdk = Together(api_key=KEY, base_url=proxy.base_url, max_retries=0)
        pt = sdk.post_training
        assert TINY in {m.base_model for m in pt.supported_models.get().data}
        resources = pt.model_resources.create(base_model=TINY)
        assert pt.model_resources.retrieve(resources.id).id == resources.id
        session = pt.sessions.create(model_resources_id=resources.id, display_name="proxy")
        assert pt.sessions.retrieve(session.id).id == session.id
        assert [s.id for s in pt.sessions.list(limit=1).data] == [session.id]
        body, key = _fb_body(), str(uuid.uuid4())
        for _ in range(2):  # the same key twice: the same operation
            op = pt.operations.forward_backward(
                session.id, idempotency_key=key, return_loss_fn_outputs=True, **body
            )
        assert _wait(sdk, session.id, op.id).status == COMPLETED
        pt.sessions.stop(session.id)
        with pytest.raises(together.NotFoundError):
            pt.sessions.retrieve("sess-missing")
        sdk.close()
    monitor = proxy.monitor
    assert monitor.violations == [], proxy.log
    assert monitor.by_operation["forwardBackward"][200] == 2
    assert monitor.by_operation["getTrainingSession"][404] == 1
    [probe] = monitor.checks.loss_probes
    assert probe.matches_project and "sum" in probe.matched
    assert stat.S_IMODE(cassette.stat().st_mode) == 0o600
    assert len(cassette.read_text().splitlines()) == monitor.exchanges
    report, junit = _reports(proxy, tmp_path)
    assert "0 violations" in report and "`optimStep`" in report  # never exercised: listed
    _assert_no_key(cassette.read_text(), report, junit, *proxy.log)


def test_grpo_toy_loop_through_the_proxy_then_replayed(
    emulator: ThreadServer, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    cassette = tmp_path / "toy.jsonl"
    with proxy_in_thread(emulator.base_url, record=cassette) as proxy:
        recorded, recorded_plot = _run_toy(proxy.base_url, tmp_path / "reward.svg")
    assert proxy.monitor.violations == [], proxy.log
    assert proxy.monitor.by_operation["forwardBackward"][200] == 3
    emulator.stop()  # the upstream is gone from here on

    misses: list[str] = []
    with replay_in_thread(cassette, log=misses.append) as (replay_url, replay):
        replayed, replayed_plot = _run_toy(replay_url, tmp_path / "reward.svg")
    assert misses == []
    assert replay.replayed > 0
    assert "step    3" in recorded
    assert WALL_TIME.sub("", replayed) == WALL_TIME.sub("", recorded)
    assert replayed_plot == recorded_plot
    report, junit = _reports(proxy, tmp_path)
    captured = capfd.readouterr()
    _assert_no_key(cassette.read_text(), report, junit, recorded, captured.out, captured.err)


def test_sdk_large_payloads_go_around_the_proxy(emulator: ThreadServer, tmp_path: Path) -> None:
    """The SDK offloads a body over 0.5 MiB to a presigned URL; the proxy forwards the upstream's
    URL unchanged (it points at the upstream, as the live API's point at its object store),
    checks the URL calls and the shrunk body, and redacts the URL's token in the cassette."""
    from together.post_training import ModelResourcesClient

    cassette = tmp_path / "large.jsonl"
    length = 1024
    tokens = [(7 * i) % 1000 for i in range(length + 1)]
    sample = {
        "model_input": {"chunks": [{"encoded_text": {"tokens": tokens[:-1]}}]},
        "loss_fn_inputs": {
            "target_tokens": {"data": tokens[1:], "dtype": "int64"},
            "weights": {"data": [1.0] * length, "dtype": "float32"},
        },
    }
    with proxy_in_thread(emulator.base_url, record=cassette) as proxy:
        resources = ModelResourcesClient.create(
            api_key=KEY, base_url=proxy.base_url, base_model=TINY
        )
        try:
            with resources.create_session(interval=0.01) as session:
                scored = session.trainer.forward(
                    samples=[sample] * 64, loss={"type": "LOSS_TYPE_CROSS_ENTROPY"}, interval=0.01
                )
        finally:
            resources.detach()
    assert len(scored.loss_fn_outputs or []) == 64
    monitor = proxy.monitor
    assert monitor.violations == [], proxy.log
    assert monitor.by_operation["createPayloadUploadUrl"][200] == 1
    assert monitor.by_operation["createPayloadDownloadUrl"][200] == 1
    assert not monitor.outside_spec  # the PUT and GET of the payload went to the upstream
    assert monitor.checks.loss_unprobed == {"the request body was offloaded (payload_id)": 1}
    recorded = cassette.read_text()
    assert "token=<redacted>" in recorded and "/_emulator/payloads/" in recorded
    _assert_no_key(recorded, *proxy.log)
