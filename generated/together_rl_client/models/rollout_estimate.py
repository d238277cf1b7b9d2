from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="RolloutEstimate")


@_attrs_define
class RolloutEstimate:
    """The estimate. Its field names are this project's (the reference does not state them).

    Attributes:
        rollout_seconds (float): Time until all episodes finish, generators sampling only.
        generator_gpu_hours (float): GPU-hours of the generator GPUs over that time.
        billed_gpu_hours (float): GPU-hours of every GPU of the model resource over that time (only the generators for a
            sampling-only resource).
        price_per_gpu_hour (float): The list price per GPU-hour, in the currency's major unit.
        price (float): billed_gpu_hours x price_per_gpu_hour.
        currency (str): ISO 4217 currency code.
    """

    rollout_seconds: float
    generator_gpu_hours: float
    billed_gpu_hours: float
    price_per_gpu_hour: float
    price: float
    currency: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        rollout_seconds = self.rollout_seconds

        generator_gpu_hours = self.generator_gpu_hours

        billed_gpu_hours = self.billed_gpu_hours

        price_per_gpu_hour = self.price_per_gpu_hour

        price = self.price

        currency = self.currency

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "rollout_seconds": rollout_seconds,
                "generator_gpu_hours": generator_gpu_hours,
                "billed_gpu_hours": billed_gpu_hours,
                "price_per_gpu_hour": price_per_gpu_hour,
                "price": price,
                "currency": currency,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        rollout_seconds = d.pop("rollout_seconds")

        generator_gpu_hours = d.pop("generator_gpu_hours")

        billed_gpu_hours = d.pop("billed_gpu_hours")

        price_per_gpu_hour = d.pop("price_per_gpu_hour")

        price = d.pop("price")

        currency = d.pop("currency")

        rollout_estimate = cls(
            rollout_seconds=rollout_seconds,
            generator_gpu_hours=generator_gpu_hours,
            billed_gpu_hours=billed_gpu_hours,
            price_per_gpu_hour=price_per_gpu_hour,
            price=price,
            currency=currency,
        )

        rollout_estimate.additional_properties = d
        return rollout_estimate

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
        "rollout_seconds",
        "generator_gpu_hours",
        "billed_gpu_hours",
        "price_per_gpu_hour",
        "price",
        "currency",
    ],
    "properties": {
        "rollout_seconds": {
            "minimum": 0.0,
        },
        "generator_gpu_hours": {
            "minimum": 0.0,
        },
        "billed_gpu_hours": {
            "minimum": 0.0,
        },
        "price_per_gpu_hour": {
            "minimum": 0.0,
        },
        "price": {
            "minimum": 0.0,
        },
        "currency": {},
    },
}
