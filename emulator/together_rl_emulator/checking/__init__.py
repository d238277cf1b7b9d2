"""Checking request bodies: decoding, scanning, schema validation and the validated
request of each operation kind."""

from __future__ import annotations

from ._body_scan import (
    FLOATS,
    MAX_DEPTH,
    BodyScan,
    extend_scan,
    scan_body,
)
from ._custom_requests import (
    CustomForwardBackwardRequest,
    validate_custom_forward_backward,
)
from ._fast_decode import (
    DecodedBody,
    Validator,
    decode_body,
    decode_fast,
)
from ._parameters import validate_parameter
from ._raw_body import RawBody, TypedValidator
from ._requests import (
    ForwardBackwardRequest,
    validate_forward_backward,
)
from ._simple_requests import (
    SEED_MODULUS,
    OptimStepRequest,
    SampleRequest,
    WeightsSyncRequest,
    check_optimizer_matches,
    default_sampler_settings,
    uses_muon,
    validate_optim_step,
    validate_sample,
    validate_weights_sync,
)
from ._typed_body import TYPED_DECODE_MIN_BYTES
from ._typed_requests import typed_custom_forward_backward, typed_forward_backward
from ._validation import validate_schema

__all__ = [
    "FLOATS",
    "MAX_DEPTH",
    "SEED_MODULUS",
    "TYPED_DECODE_MIN_BYTES",
    "BodyScan",
    "CustomForwardBackwardRequest",
    "DecodedBody",
    "ForwardBackwardRequest",
    "OptimStepRequest",
    "RawBody",
    "SampleRequest",
    "TypedValidator",
    "Validator",
    "WeightsSyncRequest",
    "check_optimizer_matches",
    "decode_body",
    "decode_fast",
    "default_sampler_settings",
    "extend_scan",
    "scan_body",
    "typed_custom_forward_backward",
    "typed_forward_backward",
    "uses_muon",
    "validate_custom_forward_backward",
    "validate_forward_backward",
    "validate_optim_step",
    "validate_parameter",
    "validate_sample",
    "validate_schema",
    "validate_weights_sync",
]
