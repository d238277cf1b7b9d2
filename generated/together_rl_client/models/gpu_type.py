from enum import StrEnum


class GpuType(StrEnum):
    B200_SXM = "B200-SXM"

    @classmethod
    def _missing_(cls, value: object) -> "GpuType | None":
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
