"""What the wrapper sends and reads, without a client or a server: the request builders (checked
against the spec as the client's methods are), a body's encoding, the reading of an operation's
answer, and the polling planner (no I/O, on any clock). For comparing another client's bodies
with the wrapper's and for measuring its cost; a training loop needs only ``together_rl``::

    sample = Sample.from_completion([1, 2, 3], [4, 5], logprobs=[-1.2, -0.7], advantages=1.0)
    body = build_forward_backward([sample], losses.GRPO())  # the checked body, a plain dict
    raw = encode_body(body)  # the bytes the POST carries: b'{"samples":[{"model_input":...'
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
from ._results import OperationState, interpret_operation

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
