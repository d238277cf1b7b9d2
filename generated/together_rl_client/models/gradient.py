from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.gradient_d_type import GradientDType
from ..types import UNSET, Unset

T = TypeVar("T", bound="Gradient")


@_attrs_define
class Gradient:
    """
    Attributes:
        data (list[float]):
        dtype (GradientDType | Unset): Element type of a gradient, in the proto enum spelling the official SDK sends
            (not the lower-case `DType` of tensors). The emulator reads the values as doubles whatever it says.
    """

    data: list[float]
    dtype: GradientDType | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        data = self.data

        dtype: str | Unset = UNSET
        if not isinstance(self.dtype, Unset):
            dtype = self.dtype.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "data": data,
            }
        )
        if dtype is not UNSET:
            field_dict["dtype"] = dtype

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        data = cast(list[float], d.pop("data"))

        _dtype = d.pop("dtype", UNSET)
        dtype: GradientDType | Unset
        if isinstance(_dtype, Unset):
            dtype = UNSET
        else:
            dtype = GradientDType(_dtype)

        gradient = cls(
            data=data,
            dtype=dtype,
        )

        return gradient


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [
        "data",
    ],
    "properties": {
        "data": {
            "minItems": 1,
        },
        "dtype": {
            "class": "GradientDType",
        },
    },
}
