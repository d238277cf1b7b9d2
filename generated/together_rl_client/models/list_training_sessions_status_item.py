from enum import StrEnum


class ListTrainingSessionsStatusItem(StrEnum):
    TRAINING_SESSION_STATUS_CREATING = "TRAINING_SESSION_STATUS_CREATING"
    TRAINING_SESSION_STATUS_ERROR = "TRAINING_SESSION_STATUS_ERROR"
    TRAINING_SESSION_STATUS_EXPIRED = "TRAINING_SESSION_STATUS_EXPIRED"
    TRAINING_SESSION_STATUS_RUNNING = "TRAINING_SESSION_STATUS_RUNNING"
    TRAINING_SESSION_STATUS_STOPPED = "TRAINING_SESSION_STATUS_STOPPED"
    TRAINING_SESSION_STATUS_STOPPING = "TRAINING_SESSION_STATUS_STOPPING"

    @classmethod
    def _missing_(cls, value: object) -> "ListTrainingSessionsStatusItem | None":
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
