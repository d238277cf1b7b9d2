"""together_rl: an idempotent, retrying, polling client for Together's RL training API.

from together_rl import Client, Sample, losses
client = Client()                      # TOGETHER_API_KEY / TOGETHER_BASE_URL
session = client.sessions.create(model_resources_id="...")
future = session.forward_backward([Sample.from_completion(p, c, logprobs=lp, advantages=a)],
                                  losses.GRPO(clip_low_threshold=0.8, clip_high_threshold=1.2))
result = future.result(timeout=300)    # .loss, .metrics, .loss_fn_outputs
session.optim_step(learning_rate=1e-4).result()            # .step
session.sync_weights().result()                             # .weights_version
session.sample([prompt], num_samples=8, max_tokens=32).result()[0].sequences  # tokens, logprobs

Names: ``Session`` and ``ModelResources`` are handles (``.info``: their last known state, a
``SessionInfo`` / ``ModelResourcesInfo``); ``client.sessions``, ``client.model_resources`` and
``client.checkpoints`` are a ``SessionsAPI``, ``ModelResourcesAPI`` and ``CheckpointsAPI``; the
``Async`` names are their asyncio twins. Every type a method returns is exported here.
"""

from together_rl_client.models import (
    Checkpoint,
    CheckpointDownloadResponse,
    CheckpointsListResponse,
    ModelResourcesCostEstimate,
    ModelResourcesListResponse,
    SessionsListResponse,
    SupportedModels,
)
from together_rl_client.models import ModelResources as ModelResourcesInfo
from together_rl_client.models import Session as SessionInfo

from . import losses
from ._async import (
    AsyncCheckpointsAPI,
    AsyncClient,
    AsyncModelResources,
    AsyncModelResourcesAPI,
    AsyncOperationFuture,
    AsyncSession,
    AsyncSessionsAPI,
)
from ._bodies import AdamParams, SamplingParams
from ._errors import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    InternalServerError,
    InvalidRequestError,
    MalformedResponseError,
    NotFoundError,
    NotReadyError,
    OperationFailedError,
    OperationTimeoutError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    ResourceStateError,
    TogetherRLError,
    UnprocessableEntityError,
)
from ._http import VERSION as __version__
from ._keep_alive import AsyncKeepAlive, KeepAlive
from ._polling import PollPolicy
from ._results import (
    CheckpointResult,
    CustomForwardBackwardResult,
    ForwardBackwardResult,
    OptimStepResult,
    PolicySegment,
    PromptSamples,
    SampledSequence,
    SampleResult,
    WeightsSyncResult,
)
from ._retry import RetryPolicy
from ._samples import Sample
from ._sync import (
    CheckpointsAPI,
    Client,
    ModelResources,
    ModelResourcesAPI,
    OperationFuture,
    Session,
    SessionsAPI,
)

__all__ = [
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "AdamParams",
    "AsyncCheckpointsAPI",
    "AsyncClient",
    "AsyncKeepAlive",
    "AsyncModelResources",
    "AsyncModelResourcesAPI",
    "AsyncOperationFuture",
    "AsyncSession",
    "AsyncSessionsAPI",
    "AuthenticationError",
    "BadRequestError",
    "Checkpoint",
    "CheckpointDownloadResponse",
    "CheckpointResult",
    "CheckpointsAPI",
    "CheckpointsListResponse",
    "Client",
    "ConflictError",
    "CustomForwardBackwardResult",
    "ForwardBackwardResult",
    "InternalServerError",
    "InvalidRequestError",
    "KeepAlive",
    "MalformedResponseError",
    "ModelResources",
    "ModelResourcesAPI",
    "ModelResourcesCostEstimate",
    "ModelResourcesInfo",
    "ModelResourcesListResponse",
    "NotFoundError",
    "NotReadyError",
    "OperationFailedError",
    "OperationFuture",
    "OperationTimeoutError",
    "OptimStepResult",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "PolicySegment",
    "PollPolicy",
    "PromptSamples",
    "RateLimitError",
    "ResourceStateError",
    "RetryPolicy",
    "Sample",
    "SampleResult",
    "SampledSequence",
    "SamplingParams",
    "Session",
    "SessionInfo",
    "SessionsAPI",
    "SessionsListResponse",
    "SupportedModels",
    "TogetherRLError",
    "UnprocessableEntityError",
    "WeightsSyncResult",
    "__version__",
    "losses",
]
