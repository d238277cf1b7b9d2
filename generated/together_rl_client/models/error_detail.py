from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ErrorDetail")


@_attrs_define
class ErrorDetail:
    """
    Attributes:
        message (str): What is wrong, naming the field and the reason.
        type_ (str): Error class, e.g. `invalid_request_error`, `authentication_error`, `not_found`.
        param (None | str | Unset): Path of the offending field, when one applies.
        code (None | str | Unset): Machine-readable code, when one applies.
    """

    message: str
    type_: str
    param: None | str | Unset = UNSET
    code: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        message = self.message

        type_ = self.type_

        param: None | str | Unset
        if isinstance(self.param, Unset):
            param = UNSET
        else:
            param = self.param

        code: None | str | Unset
        if isinstance(self.code, Unset):
            code = UNSET
        else:
            code = self.code

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message": message,
                "type": type_,
            }
        )
        if param is not UNSET:
            field_dict["param"] = param
        if code is not UNSET:
            field_dict["code"] = code

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        message = d.pop("message")

        type_ = d.pop("type")

        def _parse_param(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        param = _parse_param(d.pop("param", UNSET))

        def _parse_code(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        code = _parse_code(d.pop("code", UNSET))

        error_detail = cls(
            message=message,
            type_=type_,
            param=param,
            code=code,
        )

        error_detail.additional_properties = d
        return error_detail

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
        "message",
        "type",
    ],
    "properties": {
        "message": {},
        "type": {},
        "param": {},
        "code": {},
    },
}
