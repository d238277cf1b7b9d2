from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.operation_error import OperationError
    from ..models.weights_sync_result import WeightsSyncResult


T = TypeVar("T", bound="WeightsSyncOperation")


@_attrs_define
class WeightsSyncOperation:
    """
    Attributes:
        id (str):
        status (str): The `status` of an operation: one of the `OperationStatus` values, or a value this client
            does not know yet (a newer server's). Only COMPLETED and FAILED are terminal; clients keep
            polling on any other value. An open string, so that a generated client decodes an
            unknown status instead of failing; `OperationStatus` lists the known values (as
            constants, in generated clients).
        output (WeightsSyncResult | Unset):
        error (OperationError | Unset): Error details on failure.
    """

    id: str
    status: str
    output: WeightsSyncResult | Unset = UNSET
    error: OperationError | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        id = self.id

        status = self.status

        output: dict[str, Any] | Unset = UNSET
        if not isinstance(self.output, Unset):
            output = self.output.to_dict()

        error: dict[str, Any] | Unset = UNSET
        if not isinstance(self.error, Unset):
            error = self.error.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "status": status,
            }
        )
        if output is not UNSET:
            field_dict["output"] = output
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.operation_error import OperationError
        from ..models.weights_sync_result import WeightsSyncResult

        d = dict(src_dict)
        id = d.pop("id")

        status = d.pop("status")

        _output = d.pop("output", UNSET)
        output: WeightsSyncResult | Unset
        if isinstance(_output, Unset):
            output = UNSET
        else:
            output = WeightsSyncResult.from_dict(_output)

        _error = d.pop("error", UNSET)
        error: OperationError | Unset
        if isinstance(_error, Unset):
            error = UNSET
        else:
            error = OperationError.from_dict(_error)

        weights_sync_operation = cls(
            id=id,
            status=status,
            output=output,
            error=error,
        )

        weights_sync_operation.additional_properties = d
        return weights_sync_operation

    @property
    def additional_keys(self) -> list[str]:
        """The names of the properties the spec does not declare."""
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [
        "id",
        "status",
    ],
    "properties": {
        "id": {},
        "status": {},
        "output": {
            "class": "WeightsSyncResult",
        },
        "error": {
            "class": "OperationError",
        },
    },
}
