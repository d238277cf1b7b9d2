from enum import StrEnum


class DType(StrEnum):
    FLOAT32 = "float32"
    INT64 = "int64"

    @classmethod
    def _missing_(cls, value: object) -> "DType | None":
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
