"""What the wrapper sends and reads, without a client or a server (for comparing another
client's bodies with the wrapper's, and measuring its cost): the checked request builders, a
body's encoding, the reading of an operation's answer and the polling planner (no I/O)."""

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
