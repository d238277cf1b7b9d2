"""together_rl: an idempotent, retrying, polling client for Together's RL training API.

from together_rl import Client, Sample, losses
client = Client()                      # TOGETHER_API_KEY / TOGETHER_BASE_URL
session = client.sessions.create(model_resources_id="...")
samples = [Sample.from_completion(prompt, completion, logprobs=lp, advantages=a)]
future = session.forward_backward(samples, losses.GRPO(clip_low_threshold=0.8))
result = future.result(timeout=300)    # .loss, .metrics, .loss_fn_outputs
session.optim_step(learning_rate=1e-4).result()            # .step

Every type a method returns is exported here; the ``Async`` names are the asyncio twins
(docs/wrapper.md).
"""

from together_rl_client.models import (
    Checkpoint,
    CheckpointDownloadResponse,
    CheckpointsListResponse,
    ModelResourcesCostEstimate,
    ModelResourcesListResponse,
    RolloutEstimate,
    SessionsListResponse,
    SupportedModels,
)
from together_rl_client.models import ModelResources as ModelResourcesInfo
from together_rl_client.models import Session as SessionInfo

from . import _async, _errors, _keep_alive, _results, _sync, losses
from ._async import *  # noqa: F403
from ._bodies import AdamParams, SamplingParams
from ._errors import *  # noqa: F403
from ._http import VERSION as __version__
from ._http import RetryPolicy
from ._keep_alive import *  # noqa: F403
from ._poll_plan import PollPolicy
from ._results import *  # noqa: F403
from ._samples import Sample
from ._sync import *  # noqa: F403

__all__ = [
    "AdamParams",
    "Checkpoint",
    "CheckpointDownloadResponse",
    "CheckpointsListResponse",
    "ModelResourcesCostEstimate",
    "ModelResourcesInfo",
    "ModelResourcesListResponse",
    "PollPolicy",
    "RetryPolicy",
    "RolloutEstimate",
    "Sample",
    "SamplingParams",
    "SessionInfo",
    "SessionsListResponse",
    "SupportedModels",
    "__version__",
    "losses",
]
__all__ += _async.__all__
__all__ += _errors.__all__
__all__ += _keep_alive.__all__
__all__ += _results.__all__
__all__ += _sync.__all__
