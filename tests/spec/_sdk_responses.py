"""The answers of the mock server in `test_sdk_capture.py`: the spec's response examples where
it has them, and hand-written bodies (checked against the response schemas there) where it has
none. Also round-tripped through the generated client in `test_generated.py`."""

from __future__ import annotations

from typing import Any

from _spec_schema import operation_by_id, resolve
from emulator_harness import EMULATOR_KEY
from together.post_training import _payloads

API_KEY = EMULATOR_KEY
BASE_URL = "http://testserver"
SESSION_ID = "sess-1"
MODEL_RESOURCES_ID = "mr-1"
OPERATION_ID = "550e8400-e29b-41d4-a716-446655440000"
# The presigned URLs of the payload protocol point at object storage, outside the API.
STORAGE_HOST = "storage.test"
UPLOAD_PAYLOAD_ID = "payload-in-1"
RESULT_PAYLOAD_ID = "payload-out-1"
UPLOAD_URL = f"http://{STORAGE_HOST}/uploads/{UPLOAD_PAYLOAD_ID}?signature=up"
DOWNLOAD_URL = f"http://{STORAGE_HOST}/downloads/{RESULT_PAYLOAD_ID}?signature=down"
# the SDK's threshold (0.5 MiB of compact JSON); the spec states it too (test_spec_reader.py)
LARGE_PAYLOAD_BYTES = int(_payloads._LARGE_PAYLOAD_THRESHOLD)

# ----------------------------------------------------------------------------- responses


def _spec_example(operation_id: str, name: str) -> dict[str, Any]:
    media = resolve(operation_by_id(operation_id).spec["responses"]["200"])["content"][
        "application/json"
    ]
    value: dict[str, Any] = resolve(media["examples"][name])["value"]
    return value


FB_PENDING = _spec_example("forwardBackward", "pending")
FB_COMPLETED = _spec_example("getForwardBackwardOperation", "completed")
FB_FAILED = _spec_example("getForwardBackwardOperation", "failed")
INFERENCE_CHECKPOINT_COMPLETED = _spec_example("getInferenceCheckpointOperation", "completed")
TRAINING_CHECKPOINT_COMPLETED = _spec_example("getTrainingCheckpointOperation", "completed")
COST_ESTIMATE = _spec_example("estimateModelResourcesCost", "lora_with_one_generator")
CHECKPOINT_ID = "ckpt-7a1c"

# The spec has no response examples for these operations; these bodies are checked against the
# response schemas (test_fixture_responses_match_the_spec) before the SDK parses them.
SESSION = {
    "id": SESSION_ID,
    "base_model": "emulator/tiny-1k",
    "created_at": "2026-05-01T12:00:00Z",
    "created_by": "user-1",
    "inference_checkpoints": [],
    "training_checkpoints": [
        {"id": "ckpt-1", "created_at": "2026-05-01T12:30:00Z", "step": "100"},
    ],
    "metadata": {"wandb": {"project": "rl"}},
    "model_resources_id": MODEL_RESOURCES_ID,
    "policy_state": {
        "applied_weights_version": 3,
        "pending_publish": False,
        "target_weights_version": "3",
        "trainer_step": 100,
    },
    "status": "TRAINING_SESSION_STATUS_RUNNING",
    "step": "100",
    "updated_at": "2026-05-01T12:30:00Z",
    "display_name": "grpo run",
    "lora_config": {"rank": 16, "alpha": 32},
}
STOPPED_SESSION = {**SESSION, "status": "TRAINING_SESSION_STATUS_STOPPED"}
SESSIONS_LIST = {
    "data": [SESSION],
    "meta": {"has_more": True, "limit": 1, "next_cursor": SESSION_ID},
}
MODEL_RESOURCES = {
    "id": MODEL_RESOURCES_ID,
    "base_model": "emulator/tiny-1k",
    "compute_config": {"num_generator_replicas": 0, "gpu_type": "B200-SXM"},
    "created_at": "2026-05-01T11:00:00Z",
    "created_by": "user-1",
    "inactive_timeout": 3600,
    "lora_enabled": True,
    "optimizer_config": {"adam": {}},
    "status": "MODEL_RESOURCES_STATUS_READY",
    "status_details": {"queue_position": 0},
    "updated_at": "2026-05-01T11:00:05Z",
}
STOPPED_MODEL_RESOURCES = {**MODEL_RESOURCES, "status": "MODEL_RESOURCES_STATUS_STOPPED"}
EXTENDED_MODEL_RESOURCES = {**MODEL_RESOURCES, "expires_at": "2026-05-01T15:00:00Z"}
MODEL_RESOURCES_LIST = {
    "data": [EXTENDED_MODEL_RESOURCES, STOPPED_MODEL_RESOURCES],
    "meta": {"has_more": False, "limit": 20, "next_cursor": ""},
}
INFERENCE_CHECKPOINT = {
    "id": CHECKPOINT_ID,
    "base_model": "emulator/tiny-1k",
    "created_at": "2026-05-01T12:30:00Z",
    "session_id": SESSION_ID,
    "step": "100",
    "type": "CHECKPOINT_TYPE_INFERENCE",
    "inference_registration": {"adapter": {"id": "emulator/tiny-1k-ckpt-7a1c", "revision_id": "1"}},
    "lora_rank": 16,
}
TRAINING_CHECKPOINT = {
    "id": "ckpt-3f2e",
    "base_model": "emulator/tiny-1k",
    "created_at": "2026-05-01T12:30:00Z",
    "session_id": SESSION_ID,
    "step": 100,
    "type": "CHECKPOINT_TYPE_TRAINING",
    "training_registration": {"id": "emulator/tiny-1k-ckpt-3f2e", "revision_id": "1"},
}
CHECKPOINTS_LIST = {
    "data": [INFERENCE_CHECKPOINT, TRAINING_CHECKPOINT],
    "meta": {"has_more": True, "limit": 2, "next_cursor": "ckpt-3f2e"},
}
CHECKPOINT_DOWNLOAD = {
    "data": [
        {
            "filename": "adapter_model.safetensors",
            "size": "4096",
            "url": f"http://{STORAGE_HOST}/checkpoints/{CHECKPOINT_ID}/adapter?signature=c",
        },
        {
            "filename": "manifest.json",
            "size": 312,
            "url": f"http://{STORAGE_HOST}/checkpoints/{CHECKPOINT_ID}/manifest?signature=c",
        },
    ]
}
SUPPORTED_MODELS = {
    "data": [
        {
            "base_model": "emulator/tiny-1k",
            "default_gpu_type": "B200-SXM",
            "compute_configs": [
                {
                    "gpu_type": "B200-SXM",
                    "trainer_config": {
                        "full": {"max_batch_size": 64, "max_seq_length": 4096},
                        "lora": {"max_batch_size": 64, "max_rank": 64, "max_seq_length": 4096},
                    },
                    "generator_config": {
                        "context_length": 4096,
                        "sampling_defaults": {
                            "logprobs": 0,
                            "max_tokens": 256,
                            "n": 1,
                            "temperature": 1.0,
                        },
                    },
                }
            ],
        }
    ]
}

PENDING = {"id": OPERATION_ID, "status": "TRAINING_OPERATION_STATUS_PENDING"}


def _completed(output: dict[str, Any]) -> dict[str, Any]:
    return {"id": OPERATION_ID, "status": "TRAINING_OPERATION_STATUS_COMPLETED", "output": output}


OPTIM_STEP_COMPLETED = _completed({"step": "101"})
WEIGHTS_SYNC_COMPLETED = _completed({"weights_version": "4"})
CUSTOM_FB_COMPLETED = _completed({})
SAMPLE_RESULT = {
    "policy_segments": [{"start_token": 0, "version": 3}],
    "sequences": [
        {
            "prompt_cache_hit_tokens": 0,
            "stop_reason": "STOP_REASON_STOP",
            "tokens": [640, 12, 2],
            "logprobs": [-0.5, -1.25, -0.75],
        },
        {
            "prompt_cache_hit_tokens": 3,
            "stop_reason": "STOP_REASON_LENGTH",
            "tokens": ["640", "3", "981"],
            "logprobs": [-0.5, -2.0, -3.5],
        },
    ],
    "prompt_logprobs": [0.0, -2.5, -1.0],
    "topk_prompt_logprobs": [
        {"token_ids": [], "logprobs": []},
        {"token_ids": [254, 7], "logprobs": [-2.5, -3.0]},
        {"token_ids": [981, 5], "logprobs": [-1.0, -1.5]},
    ],
}
SAMPLE_COMPLETED = _completed({"results": [SAMPLE_RESULT]})
# Offloaded results (the server's side of the payload protocol): the large member is downloaded.
FB_OFFLOADED = _completed(
    {
        "loss": 1.5,
        "metrics": {"loss/tokens": 64.0},
        "payload_id": RESULT_PAYLOAD_ID,
    }
)
SAMPLE_OFFLOADED = _completed({"results": [], "payload_id": RESULT_PAYLOAD_ID})

RESPONSES: dict[str, dict[str, Any]] = {
    "createModelResources": MODEL_RESOURCES,
    "getModelResources": MODEL_RESOURCES,
    "listModelResources": MODEL_RESOURCES_LIST,
    "estimateModelResourcesCost": COST_ESTIMATE,
    "extendModelResourcesExpiry": EXTENDED_MODEL_RESOURCES,
    "stopModelResources": STOPPED_MODEL_RESOURCES,
    "getSupportedModels": SUPPORTED_MODELS,
    "startTrainingSession": SESSION,
    "listTrainingSessions": SESSIONS_LIST,
    "getTrainingSession": SESSION,
    "updateTrainingSession": SESSION,
    "stopTrainingSession": STOPPED_SESSION,
    "forwardBackward": FB_PENDING,
    "getForwardBackwardOperation": FB_COMPLETED,
    "optimStep": PENDING,
    "getOptimStepOperation": OPTIM_STEP_COMPLETED,
    "sample": PENDING,
    "getSampleOperation": SAMPLE_COMPLETED,
    "weightsSync": PENDING,
    "getWeightsSyncOperation": WEIGHTS_SYNC_COMPLETED,
    "customForwardBackward": PENDING,
    "getCustomForwardBackwardOperation": CUSTOM_FB_COMPLETED,
    "createInferenceCheckpoint": PENDING,
    "getInferenceCheckpointOperation": INFERENCE_CHECKPOINT_COMPLETED,
    "createTrainingCheckpoint": PENDING,
    "getTrainingCheckpointOperation": TRAINING_CHECKPOINT_COMPLETED,
    "listCheckpoints": CHECKPOINTS_LIST,
    "getCheckpoint": INFERENCE_CHECKPOINT,
    "downloadCheckpoint": CHECKPOINT_DOWNLOAD,
    "createPayloadUploadUrl": {"payload_id": UPLOAD_PAYLOAD_ID, "upload_url": UPLOAD_URL},
    "createPayloadDownloadUrl": {"download_url": DOWNLOAD_URL},
    "estimateRollouts": {
        "rollout_seconds": 40.5,
        "generator_gpu_hours": 0.01125,
        "billed_gpu_hours": 0.0225,
        "price_per_gpu_hour": 4.0,
        "price": 0.09,
        "currency": "USD",
    },
}
# Other answers the tests switch to; checked against the spec like RESPONSES.
ALTERNATIVE_RESPONSES: list[tuple[str, dict[str, Any]]] = [
    ("getForwardBackwardOperation", FB_OFFLOADED),
    ("getSampleOperation", SAMPLE_OFFLOADED),
]
