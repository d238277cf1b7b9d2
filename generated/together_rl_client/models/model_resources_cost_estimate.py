from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ModelResourcesCostEstimate")


@_attrs_define
class ModelResourcesCostEstimate:
    """
    Attributes:
        currency (str): ISO 4217 currency code.
        price_per_hour (float): Estimated on-demand price per hour, in the currency's major unit.
    """

    currency: str
    price_per_hour: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        currency = self.currency

        price_per_hour = self.price_per_hour

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "currency": currency,
                "price_per_hour": price_per_hour,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        currency = d.pop("currency")

        price_per_hour = d.pop("price_per_hour")

        model_resources_cost_estimate = cls(
            currency=currency,
            price_per_hour=price_per_hour,
        )

        model_resources_cost_estimate.additional_properties = d
        return model_resources_cost_estimate

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
        "currency",
        "price_per_hour",
    ],
    "properties": {
        "currency": {},
        "price_per_hour": {},
    },
}
