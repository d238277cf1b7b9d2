from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PolicyState")


@_attrs_define
class PolicyState:
    """
    Attributes:
        applied_weights_version (int | str): An int64. gRPC-gateway emits int64 as a decimal string (`"100"`); the
            official SDK sends
            plain integers. Both forms are accepted and either may be returned.
        pending_publish (bool):
        target_weights_version (int | str): An int64. gRPC-gateway emits int64 as a decimal string (`"100"`); the
            official SDK sends
            plain integers. Both forms are accepted and either may be returned.
        trainer_step (int | str): An int64. gRPC-gateway emits int64 as a decimal string (`"100"`); the official SDK
            sends
            plain integers. Both forms are accepted and either may be returned.
    """

    applied_weights_version: int | str
    pending_publish: bool
    target_weights_version: int | str
    trainer_step: int | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        applied_weights_version: int | str
        applied_weights_version = self.applied_weights_version

        pending_publish = self.pending_publish

        target_weights_version: int | str
        target_weights_version = self.target_weights_version

        trainer_step: int | str
        trainer_step = self.trainer_step

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "applied_weights_version": applied_weights_version,
                "pending_publish": pending_publish,
                "target_weights_version": target_weights_version,
                "trainer_step": trainer_step,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)

        def _parse_applied_weights_version(data: object) -> int | str:
            return cast(int | str, data)

        applied_weights_version = _parse_applied_weights_version(d.pop("applied_weights_version"))

        pending_publish = d.pop("pending_publish")

        def _parse_target_weights_version(data: object) -> int | str:
            return cast(int | str, data)

        target_weights_version = _parse_target_weights_version(d.pop("target_weights_version"))

        def _parse_trainer_step(data: object) -> int | str:
            return cast(int | str, data)

        trainer_step = _parse_trainer_step(d.pop("trainer_step"))

        policy_state = cls(
            applied_weights_version=applied_weights_version,
            pending_publish=pending_publish,
            target_weights_version=target_weights_version,
            trainer_step=trainer_step,
        )

        policy_state.additional_properties = d
        return policy_state

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
        "applied_weights_version",
        "pending_publish",
        "target_weights_version",
        "trainer_step",
    ],
    "properties": {
        "applied_weights_version": {},
        "pending_publish": {},
        "target_weights_version": {},
        "trainer_step": {},
    },
}
