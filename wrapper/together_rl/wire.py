"""What the wrapper sends and reads, without a client or a server.

    from together_rl import Sample, losses
    from together_rl.wire import build_forward_backward, encode_body

    sample = Sample.from_completion([1, 2, 3], [4, 5], logprobs=[-1.2, -0.7], advantages=1.0)
    body = build_forward_backward([sample], losses.GRPO())  # the checked body, a plain dict
    raw = encode_body(body)  # the bytes the POST carries: b'{"samples":[{"model_input":...'

The pieces a client call is made of, each usable alone: the request builders (they check every
field against the spec, as the client's methods do), the encoding of a body, the reading of an
operation's answer, and the polling planner that decides when the next GET goes out (no I/O:
it runs on whatever clock it is told). For comparing another client's bodies with the
wrapper's, and for measuring the wrapper's own cost (``benchmarks/``); a training loop needs
only the names of ``together_rl``.
"""

from ._bodies import (
    build_custom_forward_backward,
    build_forward_backward,
    build_optim_step,
    build_sample,
    build_weights_sync,
    encode_body,
    operation_work,
)
from ._polling import OperationPoll, PollPlanner
from ._responses import OperationState, interpret_operation

__all__ = [
    "OperationPoll",
    "OperationState",
    "PollPlanner",
    "build_custom_forward_backward",
    "build_forward_backward",
    "build_optim_step",
    "build_sample",
    "build_weights_sync",
    "encode_body",
    "interpret_operation",
    "operation_work",
]
