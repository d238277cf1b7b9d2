from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.operation_error_code import OperationErrorCode
from ..types import UNSET, Unset

T = TypeVar("T", bound="OperationError")


@_attrs_define
class OperationError:
    """Error details on failure.

    Attributes:
        code (OperationErrorCode | Unset): Why an operation failed. `NON_FINITE_LOSS`: the loss was NaN or infinite
            (nothing was
            accumulated). `SESSION_NOT_ACTIVE`: the session stopped while the operation waited.
        message (str | Unset): Human-readable message.
    """

    code: OperationErrorCode | Unset = UNSET
    message: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        code: str | Unset = UNSET
        if not isinstance(self.code, Unset):
            code = self.code.value

        message = self.message

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if code is not UNSET:
            field_dict["code"] = code
        if message is not UNSET:
            field_dict["message"] = message

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        _code = d.pop("code", UNSET)
        code: OperationErrorCode | Unset
        if isinstance(_code, Unset):
            code = UNSET
        else:
            code = OperationErrorCode(_code)

        message = d.pop("message", UNSET)

        operation_error = cls(
            code=code,
            message=message,
        )

        operation_error.additional_properties = d
        return operation_error

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
    "required": [],
    "properties": {
        "code": {
            "class": "OperationErrorCode",
        },
        "message": {},
    },
}
