"""The wrapper benchmark's large-batch table: one 64 x 2048 GRPO request encoded and its response
decoded by plain orjson, the wrapper, the generated client and the official SDK (in both states
of its param transform)."""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import numpy as np
import orjson
from together._utils import _transform as sdk_transform
from together_rl import Client, Sample
from together_rl.wire import encode_body, interpret_operation

from benchmarks._report import (
    Table,
    digest,
    interleaved,
    versions,
)
from benchmarks._wrapper_bench_common import KEY, LOSS, build_forward_backward, config, entry

__all__ = ["LargeBatch", "big_data", "counting_sdk_transform", "large_batch_table", "sdk_state"]

# The official SDK's param transform walks every element of a list whose item type is not bare
# int or float: with together 3.1.1, every `model_input` token (`SequenceNotStr[Union[str, int]]`).
# Importing `together.post_training` (SessionClient, Trainer, tinker) installs, process-wide, a
# patch that lets such lists skip the walk. So the raw `operations.forward_backward` has two
# speeds depending on what the process imported before. The process keeps the patch (the Trainer
# of the polling table always runs with it); the large-batch table measures both states, each set
# explicitly for its row (`sdk_state`), never left to import order: the first published figure
# was taken after the polling table had imported `together.post_training`, unknowingly on the
# fast path.
SDK_PLAIN_PREDICATE = sdk_transform._no_transform_needed
if SDK_PLAIN_PREDICATE.__module__ != sdk_transform.__name__:
    raise RuntimeError("import benchmarks._wrapper_large_batch before together.post_training")
importlib.import_module("together.post_training")  # installs its patch, as the Trainer runs
SDK_PATCHED_PREDICATE = sdk_transform._no_transform_needed

BIG_SHAPE = (64, 2048)  # samples x tokens of the large request


def big_data() -> tuple[list[dict[str, Any]], list[Sample], bytes]:
    """The 64 x 2048 request (wire dicts and the same samples as builders) and a response with
    loss_fn_outputs. Seeded: the same bytes on every run (their digests are checked facts)."""
    batch, length = BIG_SHAPE
    rng = np.random.default_rng(0)
    dicts, samples = [], []
    for _ in range(batch):
        prompt = rng.integers(0, 150_000, 256)
        completion = rng.integers(0, 150_000, length - 256 + 1)
        logprobs = -rng.random(len(completion))
        sample = Sample.from_completion(prompt, completion, logprobs=logprobs, advantages=0.5)
        samples.append(sample)
        dicts.append(
            orjson.loads(orjson.dumps(sample.to_wire(), option=orjson.OPT_SERIALIZE_NUMPY))
        )
    response = {
        "id": "op-1",
        "status": "TRAINING_OPERATION_STATUS_COMPLETED",
        "output": {
            "loss": 0.5,
            "metrics": {"loss/clip/high_fraction": 0.1},
            "loss_fn_outputs": [
                {
                    "tensors": {
                        "logprobs": {
                            "data": [float(x) for x in -rng.random(length)],
                            "dtype": "float32",
                        }
                    }
                }
                for _ in range(batch)
            ],
        },
    }
    return dicts, samples, orjson.dumps(response)


class _Recorder:
    """A MockTransport handler that answers the canned response and keeps what was sent."""

    def __init__(self, response: bytes) -> None:
        self.response = response
        self.sent: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        headers = {"content-type": "application/json"}
        return httpx.Response(200, content=self.response, headers=headers)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)


@contextlib.contextmanager
def counting_sdk_transform() -> Iterator[list[int]]:
    """Count the official SDK's recursive param transform calls: one per element it walks.

    The SDK walks every element of a list whose item type is not plain int or float; with
    together 3.1.1 that is every token of `model_input` (typed `SequenceNotStr[Union[str, int]]`),
    and it is most of the SDK's time on a large batch. The count is part of the SDK row's code
    path: a different SDK or payload that skips the walk changes it.
    """
    count = [0]
    original = sdk_transform._transform_recursive

    def counted(*args: Any, **kwargs: Any) -> object:
        count[0] += 1
        return original(*args, **kwargs)

    sdk_transform._transform_recursive = counted
    try:
        yield count
    finally:
        sdk_transform._transform_recursive = original


def sdk_state(patched: bool) -> Callable[[Callable[[], object]], Callable[[], object]]:
    """Run a callable with the SDK's transform as plain `import together` leaves it, or as
    `import together.post_training` leaves it."""
    predicate = SDK_PATCHED_PREDICATE if patched else SDK_PLAIN_PREDICATE

    def wrap(fn: Callable[[], object]) -> Callable[[], object]:
        def run() -> object:
            before = sdk_transform._no_transform_needed
            sdk_transform._no_transform_needed = predicate
            try:
                return fn()
            finally:
                sdk_transform._no_transform_needed = before

        return run

    return wrap


class LargeBatch:
    """The measured callables of the large-batch table, all on the same payload."""

    def __init__(self) -> None:
        from together import Together
        from together._utils import maybe_transform
        from together.types.post_training import operation_forward_backward_params
        from together_rl_client import AuthenticatedClient
        from together_rl_client.api.rl import forward_backward as generated_fb
        from together_rl_client.models import ForwardBackwardBody

        self.dicts, self.samples, self.response = big_data()
        self.loss = LOSS.to_wire()
        self.body = {"samples": self.dicts, "loss": self.loss}
        self.recorders = {
            name: _Recorder(self.response) for name in ("wrapper", "generated", "sdk")
        }
        # Inline, as the official SDK's raw method sends it: the comparison stays like for like.
        self.client = Client(
            KEY,
            "http://mock.test",
            transport=self.recorders["wrapper"].transport(),
            upload_threshold=None,
        )
        self.session = self.client.session("s1")
        self.generated_client = AuthenticatedClient(
            base_url="http://mock.test/v1",
            token=KEY,
            httpx_args={"transport": self.recorders["generated"].transport()},
        )
        self.sdk = Together(
            api_key=KEY,
            base_url="http://mock.test",
            http_client=httpx.Client(transport=self.recorders["sdk"].transport()),
        )
        self._generated_fb = generated_fb
        self._body_model = ForwardBackwardBody
        self._maybe_transform = maybe_transform
        self._sdk_params = operation_forward_backward_params.OperationForwardBackwardParams

    def rows(self) -> dict[str, tuple[str, Callable[[], object], str]]:
        """name -> (label, callable, entry point), in the order of the table."""
        sdk_ops = self.sdk.post_training.operations

        def sdk_call() -> object:
            return sdk_ops.forward_backward(
                "s1",
                idempotency_key="k",
                samples=self.dicts,  # type: ignore[arg-type]
                loss=self.loss,  # type: ignore[arg-type]
            )

        return {
            "orjson_encode": (
                "plain `orjson.dumps` of the wire dicts",
                lambda: orjson.dumps(self.body),
                entry(orjson.dumps),
            ),
            "wrapper_encode_dicts": (
                "wrapper: check + encode the same dicts",
                lambda: encode_body(build_forward_backward(self.dicts, LOSS)),
                entry(encode_body),
            ),
            "wrapper_encode_samples": (
                "wrapper: check + encode from `Sample` builders (numpy)",
                lambda: encode_body(build_forward_backward(self.samples, LOSS)),
                entry(encode_body),
            ),
            "orjson_decode": (
                "plain `orjson.loads` of the response",
                lambda: orjson.loads(self.response),
                entry(orjson.loads),
            ),
            "wrapper_decode": (
                "wrapper: decode into numpy float32 arrays",
                lambda: interpret_operation(orjson.loads(self.response)),
                entry(interpret_operation),
            ),
            "wrapper_call": (
                "wrapper full call: `forward_backward(...).result()`",
                lambda: self.session.forward_backward(self.dicts, LOSS).result(),
                entry(type(self.session).forward_backward),
            ),
            "generated_models": (
                "generated attrs models: `ForwardBackwardBody.from_dict(...).to_dict()`",
                lambda: self._body_model.from_dict(self.body).to_dict(),
                entry(self._body_model.from_dict),
            ),
            "generated_call": (
                "generated client full call: `from_dict` + `forward_backward.sync_detailed`",
                lambda: self._generated_fb.sync_detailed(
                    "s1",
                    client=self.generated_client,
                    body=self._body_model.from_dict(self.body),
                    idempotency_key="k",
                ),
                entry(self._generated_fb.sync_detailed),
            ),
            "sdk_transform": (
                "SDK, plain `import together`: its param transform alone (`maybe_transform`)",
                sdk_state(patched=False)(
                    lambda: self._maybe_transform(self.body, self._sdk_params)
                ),
                f"{entry(self._maybe_transform)} with {entry(SDK_PLAIN_PREDICATE)}",
            ),
            "sdk_call": (
                "SDK, plain `import together`: raw `operations.forward_backward`",
                sdk_state(patched=False)(sdk_call),
                f"{entry(type(sdk_ops).forward_backward)} with {entry(SDK_PLAIN_PREDICATE)}",
            ),
            "sdk_call_patched": (
                "SDK after `import together.post_training`: raw `operations.forward_backward`",
                sdk_state(patched=True)(sdk_call),
                f"{entry(type(sdk_ops).forward_backward)} with {entry(SDK_PATCHED_PREDICATE)}",
            ),
        }

    def facts(self) -> dict[str, Any]:
        """Run every row once, untimed, and describe payload and code path."""
        request = orjson.dumps(self.body)
        rows: dict[str, Any] = {}
        for name, (_, fn, where) in self.rows().items():
            for recorder in self.recorders.values():
                recorder.sent.clear()
            with counting_sdk_transform() as walked:
                fn()
            row: dict[str, Any] = {"entry": where}
            sent = [r for recorder in self.recorders.values() for r in recorder.sent]
            if sent:
                row["requests"] = [f"{r.method} {r.url.path}" for r in sent]
                row["sent_bytes"] = len(sent[0].content)
                row["sent_sha256"] = digest(sent[0].content)
                row["sent_same_as_orjson"] = sent[0].content == request
            if walked[0]:
                row["sdk_elements_walked"] = walked[0]
            rows[name] = row
        batch, length = BIG_SHAPE
        return {
            "payload": {
                "shape": f"{batch} x {length}",
                "request_bytes": len(request),
                "request_sha256": digest(request),
                "response_bytes": len(self.response),
                "response_sha256": digest(self.response),
            },
            "loss": self.loss,
            "together": versions().get("together"),
            "rows": rows,
        }

    def close(self) -> None:
        self.client.close()


def large_batch_table(quick: bool) -> Table:
    bench = LargeBatch()
    try:
        rows = bench.rows()
        timed = interleaved(
            {name: fn for name, (_, fn, _) in rows.items()}, config(quick)["big_repeat"]
        )
        facts = bench.facts()
    finally:
        bench.close()

    def vs(name: str, base: str) -> str:
        return f"{timed[name] / timed[base]:.2f}x {base.replace('_', ' ')}"

    compare = {
        "wrapper_encode_dicts": vs("wrapper_encode_dicts", "orjson_encode"),
        "wrapper_encode_samples": vs("wrapper_encode_samples", "orjson_encode"),
        "wrapper_decode": vs("wrapper_decode", "orjson_decode"),
        "generated_models": vs("generated_models", "orjson_encode"),
        "generated_call": vs("generated_call", "wrapper_call"),
        "sdk_transform": f"{timed['sdk_transform'] / timed['sdk_call']:.0%} of the SDK call",
        "sdk_call": vs("sdk_call", "wrapper_call"),
        "sdk_call_patched": vs("sdk_call_patched", "wrapper_call"),
    }
    payload = facts["payload"]
    return Table(
        key="wrapper.large_batch",
        title="One 64 x 2048 GRPO forward-backward: wrapper, generated models and the SDK",
        payload=f"64 samples x 2048 tokens (`model_input` tokens, target_tokens, logprobs, "
        f"advantages, weights), GRPO, seed 0: request {payload['request_bytes'] / 1e6:.1f} MB, "
        f"response with loss_fn_outputs {payload['response_bytes'] / 1e6:.1f} MB; the same "
        "wire dicts for every row. Full calls go to an `httpx.MockTransport` that answers the "
        "canned response (no network), the request sent inline by all three clients.",
        columns=["step", "median ms", "ratio"],
        align="l r r",
        rows=[
            [label, f"{timed[name]:.1f}", compare.get(name, "")]
            for name, (label, _, _) in rows.items()
        ],
        facts=facts,
        notes=[
            f"All rows interleaved in one run ({config(quick)['big_repeat']} rounds, one "
            "repetition of each per round, after one untimed round). The SDK's param transform "
            "walks each `model_input` token unless `together.post_training` has been imported "
            '(`sdk_elements_walked` in the facts): see "The official SDK\'s two code paths" '
            "above."
        ],
    )


# --------------------------------------------------------------------------- 3. pipelining
