from enum import StrEnum


class ModelResourcesStatus(StrEnum):
    MODEL_RESOURCES_STATUS_CREATING = "MODEL_RESOURCES_STATUS_CREATING"
    MODEL_RESOURCES_STATUS_ERROR = "MODEL_RESOURCES_STATUS_ERROR"
    MODEL_RESOURCES_STATUS_PENDING = "MODEL_RESOURCES_STATUS_PENDING"
    MODEL_RESOURCES_STATUS_READY = "MODEL_RESOURCES_STATUS_READY"
    MODEL_RESOURCES_STATUS_STOPPED = "MODEL_RESOURCES_STATUS_STOPPED"
    MODEL_RESOURCES_STATUS_STOPPING = "MODEL_RESOURCES_STATUS_STOPPING"

    @classmethod
    def _missing_(cls, value: object) -> "ModelResourcesStatus | None":
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
