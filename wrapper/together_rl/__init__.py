"""together_rl: an idempotent, retrying, polling client for Together's RL training API.

from together_rl import Client, Sample, losses
client = Client()                      # TOGETHER_API_KEY / TOGETHER_BASE_URL
session = client.sessions.create(model_resources_id="...")
future = session.forward_backward([Sample.from_completion(p, c, logprobs=lp, advantages=a)],
                                  losses.GRPO(clip_low_threshold=0.8, clip_high_threshold=1.2))
result = future.result(timeout=300)    # .loss, .metrics, .loss_fn_outputs
"""

from . import losses
from ._async import AsyncClient, AsyncForwardBackwardFuture, AsyncSession
from ._errors import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    InternalServerError,
    InvalidRequestError,
    NotFoundError,
    OperationFailedError,
    OperationTimeoutError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    ResourceStateError,
    TogetherRLError,
    UnprocessableEntityError,
)
from ._policy import PollPolicy, RetryPolicy
from ._results import ForwardBackwardResult
from ._samples import Sample
from ._sync import Client, ForwardBackwardFuture, Session
from ._wire import build_forward_backward, encode_body

__all__ = [
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "AsyncClient",
    "AsyncForwardBackwardFuture",
    "AsyncSession",
    "AuthenticationError",
    "BadRequestError",
    "Client",
    "ConflictError",
    "ForwardBackwardFuture",
    "ForwardBackwardResult",
    "InternalServerError",
    "InvalidRequestError",
    "NotFoundError",
    "OperationFailedError",
    "OperationTimeoutError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "PollPolicy",
    "RateLimitError",
    "ResourceStateError",
    "RetryPolicy",
    "Sample",
    "Session",
    "TogetherRLError",
    "UnprocessableEntityError",
    "build_forward_backward",
    "encode_body",
    "losses",
]
