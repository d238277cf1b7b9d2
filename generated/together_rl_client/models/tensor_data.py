from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.d_type import DType
from ..types import UNSET, Unset

T = TypeVar("T", bound="TensorData")


@_attrs_define
class TensorData:
    """A one-dimensional tensor as a flat list of JSON numbers. NaN and Infinity are never valid.
    Training operations accept 1-D tensors only: `shape`, when given, is `[len(data)]`.

        Attributes:
            data (list[float]): Flattened values. `int64` tensors hold integers.
            dtype (DType): Element type of a tensor. Lower-case (not the `D_TYPE_*` enum of custom gradients).
            shape (list[int] | Unset): Optional; for training operations exactly one dimension equal to `len(data)`.
            sparse_crow_indices (list[int] | Unset): Unsupported for training operations; omit it (sending it, even empty,
                is a 400).
            sparse_col_indices (list[int] | Unset): Unsupported for training operations; omit it (sending it, even empty, is
                a 400).
    """

    data: list[float]
    dtype: DType
    shape: list[int] | Unset = UNSET
    sparse_crow_indices: list[int] | Unset = UNSET
    sparse_col_indices: list[int] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        data = self.data

        dtype = self.dtype.value

        shape: list[int] | Unset = UNSET
        if not isinstance(self.shape, Unset):
            shape = self.shape

        sparse_crow_indices: list[int] | Unset = UNSET
        if not isinstance(self.sparse_crow_indices, Unset):
            sparse_crow_indices = self.sparse_crow_indices

        sparse_col_indices: list[int] | Unset = UNSET
        if not isinstance(self.sparse_col_indices, Unset):
            sparse_col_indices = self.sparse_col_indices

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "data": data,
                "dtype": dtype,
            }
        )
        if shape is not UNSET:
            field_dict["shape"] = shape
        if sparse_crow_indices is not UNSET:
            field_dict["sparse_crow_indices"] = sparse_crow_indices
        if sparse_col_indices is not UNSET:
            field_dict["sparse_col_indices"] = sparse_col_indices

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        data = cast(list[float], d.pop("data"))

        dtype = DType(d.pop("dtype"))

        shape = cast(list[int], d.pop("shape", UNSET))

        sparse_crow_indices = cast(list[int], d.pop("sparse_crow_indices", UNSET))

        sparse_col_indices = cast(list[int], d.pop("sparse_col_indices", UNSET))

        tensor_data = cls(
            data=data,
            dtype=dtype,
            shape=shape,
            sparse_crow_indices=sparse_crow_indices,
            sparse_col_indices=sparse_col_indices,
        )

        return tensor_data


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [
        "data",
        "dtype",
    ],
    "properties": {
        "data": {},
        "dtype": {
            "class": "DType",
        },
        "shape": {},
        "sparse_crow_indices": {},
        "sparse_col_indices": {},
    },
}
