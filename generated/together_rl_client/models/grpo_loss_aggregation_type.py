from enum import StrEnum


class GRPOLossAggregationType(StrEnum):
    GRPO_LOSS_AGGREGATION_TYPE_FIXED_HORIZON = "GRPO_LOSS_AGGREGATION_TYPE_FIXED_HORIZON"
    GRPO_LOSS_AGGREGATION_TYPE_SEQUENCE_MEAN = "GRPO_LOSS_AGGREGATION_TYPE_SEQUENCE_MEAN"
    GRPO_LOSS_AGGREGATION_TYPE_TOKEN_MEAN = "GRPO_LOSS_AGGREGATION_TYPE_TOKEN_MEAN"
    GRPO_LOSS_AGGREGATION_TYPE_UNSPECIFIED = "GRPO_LOSS_AGGREGATION_TYPE_UNSPECIFIED"

    @classmethod
    def _missing_(cls, value: object) -> "GRPOLossAggregationType | None":
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
