"""`together_rl.wire`, the wrapper's pieces without a client: the bytes its builders and
encoding give are the bytes a client call sends, and its reading of an answer is the client's."""

from __future__ import annotations

import httpx
import numpy as np
from together_rl import Client, Sample, losses
from together_rl.wire import build_forward_backward, encode_body, interpret_operation

RUNNING = {"id": "op-1", "status": "TRAINING_OPERATION_STATUS_RUNNING"}
DONE = {
    **RUNNING,
    "status": "TRAINING_OPERATION_STATUS_COMPLETED",
    "output": {"loss": 0.5, "metrics": {}, "loss_fn_outputs": []},
}


def test_the_encoded_body_is_what_the_client_posts() -> None:
    sample = Sample.from_completion(
        [1, 2, 3], np.array([4, 5]), logprobs=[-1.2, -0.7], advantages=1.0
    )
    loss = losses.GRPO(clip_low_threshold=0.8, clip_high_threshold=1.2)
    posted: list[bytes] = []

    def answer(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            posted.append(request.content)
            return httpx.Response(200, json=RUNNING)
        return httpx.Response(200, json=DONE)

    client = Client(api_key="k", base_url="http://mock", transport=httpx.MockTransport(answer))
    result = client.session("s-1").forward_backward([sample], loss).result(timeout=10)
    assert posted == [encode_body(build_forward_backward([sample], loss))]
    assert interpret_operation(DONE).result == result
    assert interpret_operation(RUNNING).terminal is False
