from enum import StrEnum


class OperationErrorCode(StrEnum):
    TRAINING_OPERATION_ERROR_CODE_INTERNAL_ERROR = "TRAINING_OPERATION_ERROR_CODE_INTERNAL_ERROR"
    TRAINING_OPERATION_ERROR_CODE_INVALID_INPUT = "TRAINING_OPERATION_ERROR_CODE_INVALID_INPUT"
    TRAINING_OPERATION_ERROR_CODE_NON_FINITE_LOSS = "TRAINING_OPERATION_ERROR_CODE_NON_FINITE_LOSS"
    TRAINING_OPERATION_ERROR_CODE_RESOURCE_EXHAUSTED = (
        "TRAINING_OPERATION_ERROR_CODE_RESOURCE_EXHAUSTED"
    )
    TRAINING_OPERATION_ERROR_CODE_SESSION_NOT_ACTIVE = (
        "TRAINING_OPERATION_ERROR_CODE_SESSION_NOT_ACTIVE"
    )
    TRAINING_OPERATION_ERROR_CODE_TIMEOUT = "TRAINING_OPERATION_ERROR_CODE_TIMEOUT"
    TRAINING_OPERATION_ERROR_CODE_UNSPECIFIED = "TRAINING_OPERATION_ERROR_CODE_UNSPECIFIED"

    @classmethod
    def _missing_(cls, value: object) -> "OperationErrorCode | None":
        """Keep values a newer server sends instead of failing: they parse as an ``UNKNOWN`` member
        whose ``value`` is the string received, and serialise back unchanged."""
        if not isinstance(value, str):
            return None
        member = str.__new__(cls, value)
        member._name_ = "UNKNOWN"
        member._value_ = value
        return member

    def __str__(self) -> str:
        return str(self.value)
