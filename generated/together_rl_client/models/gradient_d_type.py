from enum import StrEnum


class GradientDType(StrEnum):
    D_TYPE_BFLOAT16 = "D_TYPE_BFLOAT16"
    D_TYPE_FLOAT32 = "D_TYPE_FLOAT32"
    D_TYPE_INT64 = "D_TYPE_INT64"
    D_TYPE_UNSPECIFIED = "D_TYPE_UNSPECIFIED"

    @classmethod
    def _missing_(cls, value: object) -> "GradientDType | None":
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
