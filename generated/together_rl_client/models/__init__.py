"""Contains all the data models used in inputs/outputs"""

from .adam_params import AdamParams
from .checkpoint import Checkpoint
from .checkpoint_download_response import CheckpointDownloadResponse
from .checkpoint_file import CheckpointFile
from .checkpoint_registration import CheckpointRegistration
from .checkpoint_type import CheckpointType
from .checkpoint_variant import CheckpointVariant
from .checkpoints_list_response import CheckpointsListResponse
from .cispo_loss_params import CISPOLossParams
from .compute_config import ComputeConfig
from .compute_config_gpu_type import ComputeConfigGpuType
from .compute_config_request import ComputeConfigRequest
from .compute_config_request_gpu_type import ComputeConfigRequestGpuType
from .cross_entropy_loss_params import CrossEntropyLossParams
from .custom_forward_backward_body import CustomForwardBackwardBody
from .custom_forward_backward_operation import CustomForwardBackwardOperation
from .custom_forward_backward_result import CustomForwardBackwardResult
from .d_type import DType
from .dppo_loss_params import DPPOLossParams
from .dro_loss_params import DROLossParams
from .encoded_text_chunk import EncodedTextChunk
from .error_data import ErrorData
from .error_detail import ErrorDetail
from .forward_backward_body import ForwardBackwardBody
from .forward_backward_operation import ForwardBackwardOperation
from .forward_backward_result import ForwardBackwardResult
from .forward_backward_result_metrics import ForwardBackwardResultMetrics
from .generator_config import GeneratorConfig
from .gpu_type import GpuType
from .gradient import Gradient
from .gradient_d_type import GradientDType
from .grpo_loss_aggregation_type import GRPOLossAggregationType
from .grpo_loss_params import GRPOLossParams
from .grpo_loss_ratio_type import GRPOLossRatioType
from .inference_checkpoint import InferenceCheckpoint
from .inference_checkpoint_operation import InferenceCheckpointOperation
from .inference_checkpoint_registration import InferenceCheckpointRegistration
from .inference_checkpoint_result import InferenceCheckpointResult
from .inference_registration import InferenceRegistration
from .list_meta import ListMeta
from .list_training_sessions_status_item import ListTrainingSessionsStatusItem
from .lora_config import LoraConfig
from .lora_trainer_limits import LoraTrainerLimits
from .loss_config import LossConfig
from .loss_fn_inputs import LossFnInputs
from .loss_fn_output import LossFnOutput
from .loss_fn_output_tensors import LossFnOutputTensors
from .loss_type import LossType
from .model_input import ModelInput
from .model_input_chunk import ModelInputChunk
from .model_resources import ModelResources
from .model_resources_cost_estimate import ModelResourcesCostEstimate
from .model_resources_create import ModelResourcesCreate
from .model_resources_error import ModelResourcesError
from .model_resources_error_code import ModelResourcesErrorCode
from .model_resources_extend_expiry import ModelResourcesExtendExpiry
from .model_resources_list_response import ModelResourcesListResponse
from .model_resources_status import ModelResourcesStatus
from .muon_params import MuonParams
from .muon_scaling_strategy import MuonScalingStrategy
from .operation_error import OperationError
from .operation_error_code import OperationErrorCode
from .operation_status import OperationStatus
from .optim_step_body import OptimStepBody
from .optim_step_operation import OptimStepOperation
from .optim_step_result import OptimStepResult
from .optimizer_config import OptimizerConfig
from .optimizer_config_adam import OptimizerConfigAdam
from .optimizer_config_muon import OptimizerConfigMuon
from .payload_download_url import PayloadDownloadUrl
from .payload_upload_url import PayloadUploadUrl
from .policy_state import PolicyState
from .policy_version_segment import PolicyVersionSegment
from .ppo_loss_params import PPOLossParams
from .prompt_top_logprobs import PromptTopLogprobs
from .rollout_estimate import RolloutEstimate
from .rollout_estimate_request import RolloutEstimateRequest
from .sample import Sample
from .sample_body import SampleBody
from .sample_operation import SampleOperation
from .sample_output import SampleOutput
from .sample_result import SampleResult
from .sampled_sequence import SampledSequence
from .sampling_defaults import SamplingDefaults
from .sampling_params import SamplingParams
from .session import Session
from .session_create import SessionCreate
from .session_error import SessionError
from .session_error_code import SessionErrorCode
from .session_metadata import SessionMetadata
from .session_status import SessionStatus
from .session_update import SessionUpdate
from .sessions_list_response import SessionsListResponse
from .status_details import StatusDetails
from .stop_reason import StopReason
from .supported_compute_config import SupportedComputeConfig
from .supported_model import SupportedModel
from .supported_models import SupportedModels
from .tensor_data import TensorData
from .trainer_config import TrainerConfig
from .trainer_limits import TrainerLimits
from .training_checkpoint import TrainingCheckpoint
from .training_checkpoint_operation import TrainingCheckpointOperation
from .training_checkpoint_result import TrainingCheckpointResult
from .wandb_metadata import WandbMetadata
from .weight_sync_type import WeightSyncType
from .weights_sync_body import WeightsSyncBody
from .weights_sync_operation import WeightsSyncOperation
from .weights_sync_result import WeightsSyncResult

__all__ = (
    "AdamParams",
    "CISPOLossParams",
    "Checkpoint",
    "CheckpointDownloadResponse",
    "CheckpointFile",
    "CheckpointRegistration",
    "CheckpointType",
    "CheckpointVariant",
    "CheckpointsListResponse",
    "ComputeConfig",
    "ComputeConfigGpuType",
    "ComputeConfigRequest",
    "ComputeConfigRequestGpuType",
    "CrossEntropyLossParams",
    "CustomForwardBackwardBody",
    "CustomForwardBackwardOperation",
    "CustomForwardBackwardResult",
    "DPPOLossParams",
    "DROLossParams",
    "DType",
    "EncodedTextChunk",
    "ErrorData",
    "ErrorDetail",
    "ForwardBackwardBody",
    "ForwardBackwardOperation",
    "ForwardBackwardResult",
    "ForwardBackwardResultMetrics",
    "GRPOLossAggregationType",
    "GRPOLossParams",
    "GRPOLossRatioType",
    "GeneratorConfig",
    "GpuType",
    "Gradient",
    "GradientDType",
    "InferenceCheckpoint",
    "InferenceCheckpointOperation",
    "InferenceCheckpointRegistration",
    "InferenceCheckpointResult",
    "InferenceRegistration",
    "ListMeta",
    "ListTrainingSessionsStatusItem",
    "LoraConfig",
    "LoraTrainerLimits",
    "LossConfig",
    "LossFnInputs",
    "LossFnOutput",
    "LossFnOutputTensors",
    "LossType",
    "ModelInput",
    "ModelInputChunk",
    "ModelResources",
    "ModelResourcesCostEstimate",
    "ModelResourcesCreate",
    "ModelResourcesError",
    "ModelResourcesErrorCode",
    "ModelResourcesExtendExpiry",
    "ModelResourcesListResponse",
    "ModelResourcesStatus",
    "MuonParams",
    "MuonScalingStrategy",
    "OperationError",
    "OperationErrorCode",
    "OperationStatus",
    "OptimStepBody",
    "OptimStepOperation",
    "OptimStepResult",
    "OptimizerConfig",
    "OptimizerConfigAdam",
    "OptimizerConfigMuon",
    "PPOLossParams",
    "PayloadDownloadUrl",
    "PayloadUploadUrl",
    "PolicyState",
    "PolicyVersionSegment",
    "PromptTopLogprobs",
    "RolloutEstimate",
    "RolloutEstimateRequest",
    "Sample",
    "SampleBody",
    "SampleOperation",
    "SampleOutput",
    "SampleResult",
    "SampledSequence",
    "SamplingDefaults",
    "SamplingParams",
    "Session",
    "SessionCreate",
    "SessionError",
    "SessionErrorCode",
    "SessionMetadata",
    "SessionStatus",
    "SessionUpdate",
    "SessionsListResponse",
    "StatusDetails",
    "StopReason",
    "SupportedComputeConfig",
    "SupportedModel",
    "SupportedModels",
    "TensorData",
    "TrainerConfig",
    "TrainerLimits",
    "TrainingCheckpoint",
    "TrainingCheckpointOperation",
    "TrainingCheckpointResult",
    "WandbMetadata",
    "WeightSyncType",
    "WeightsSyncBody",
    "WeightsSyncOperation",
    "WeightsSyncResult",
)
