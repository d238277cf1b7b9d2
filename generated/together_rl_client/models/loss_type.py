from enum import StrEnum


class LossType(StrEnum):
    LOSS_TYPE_CISPO = "LOSS_TYPE_CISPO"
    LOSS_TYPE_CROSS_ENTROPY = "LOSS_TYPE_CROSS_ENTROPY"
    LOSS_TYPE_DPPO = "LOSS_TYPE_DPPO"
    LOSS_TYPE_DRO = "LOSS_TYPE_DRO"
    LOSS_TYPE_GRPO = "LOSS_TYPE_GRPO"
    LOSS_TYPE_IMPORTANCE_SAMPLING = "LOSS_TYPE_IMPORTANCE_SAMPLING"
    LOSS_TYPE_PPO = "LOSS_TYPE_PPO"
    LOSS_TYPE_UNSPECIFIED = "LOSS_TYPE_UNSPECIFIED"

    @classmethod
    def _missing_(cls, value: object) -> "LossType | None":
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
