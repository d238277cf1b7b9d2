from enum import StrEnum


class SessionErrorCode(StrEnum):
    TRAINING_SESSION_ERROR_CODE_RESOURCE_AT_CAPACITY = (
        "TRAINING_SESSION_ERROR_CODE_RESOURCE_AT_CAPACITY"
    )
    TRAINING_SESSION_ERROR_CODE_RESOURCE_UNAVAILABLE = (
        "TRAINING_SESSION_ERROR_CODE_RESOURCE_UNAVAILABLE"
    )
    TRAINING_SESSION_ERROR_CODE_SESSION_FAILED = "TRAINING_SESSION_ERROR_CODE_SESSION_FAILED"
    TRAINING_SESSION_ERROR_CODE_TIMED_OUT = "TRAINING_SESSION_ERROR_CODE_TIMED_OUT"

    @classmethod
    def _missing_(cls, value: object) -> "SessionErrorCode | None":
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
