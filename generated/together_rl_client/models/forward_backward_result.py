from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.forward_backward_result_metrics import ForwardBackwardResultMetrics
    from ..models.loss_fn_output import LossFnOutput


T = TypeVar("T", bound="ForwardBackwardResult")


@_attrs_define
class ForwardBackwardResult:
    """Result on success.

    Attributes:
        loss (float): The loss value of the whole request.
        metrics (ForwardBackwardResultMetrics | Unset): Loss-specific metrics, e.g. `loss/clip/high_fraction` and
            `loss/kl_ref/mean` for GRPO.
            No key is guaranteed.
        loss_fn_outputs (list[LossFnOutput] | Unset): One entry per sample, in request order; empty unless
            `return_loss_fn_outputs` was set.
        payload_id (str | Unset): Present when the server offloaded the large members (`loss_fn_outputs`): fetch them
            through `POST .../payloads/{payload_id}/download-url` (official SDK behaviour).
    """

    loss: float
    metrics: ForwardBackwardResultMetrics | Unset = UNSET
    loss_fn_outputs: list[LossFnOutput] | Unset = UNSET
    payload_id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        loss = self.loss

        metrics: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metrics, Unset):
            metrics = self.metrics.to_dict()

        loss_fn_outputs: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.loss_fn_outputs, Unset):
            loss_fn_outputs = []
            for loss_fn_outputs_item_data in self.loss_fn_outputs:
                loss_fn_outputs_item = loss_fn_outputs_item_data.to_dict()
                loss_fn_outputs.append(loss_fn_outputs_item)

        payload_id = self.payload_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "loss": loss,
            }
        )
        if metrics is not UNSET:
            field_dict["metrics"] = metrics
        if loss_fn_outputs is not UNSET:
            field_dict["loss_fn_outputs"] = loss_fn_outputs
        if payload_id is not UNSET:
            field_dict["payload_id"] = payload_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.forward_backward_result_metrics import ForwardBackwardResultMetrics
        from ..models.loss_fn_output import LossFnOutput

        d = dict(src_dict)
        loss = d.pop("loss")

        _metrics = d.pop("metrics", UNSET)
        metrics: ForwardBackwardResultMetrics | Unset
        if isinstance(_metrics, Unset):
            metrics = UNSET
        else:
            metrics = ForwardBackwardResultMetrics.from_dict(_metrics)

        _loss_fn_outputs = d.pop("loss_fn_outputs", UNSET)
        loss_fn_outputs: list[LossFnOutput] | Unset = UNSET
        if _loss_fn_outputs is not UNSET:
            loss_fn_outputs = []
            for loss_fn_outputs_item_data in _loss_fn_outputs:
                loss_fn_outputs_item = LossFnOutput.from_dict(loss_fn_outputs_item_data)

                loss_fn_outputs.append(loss_fn_outputs_item)

        payload_id = d.pop("payload_id", UNSET)

        forward_backward_result = cls(
            loss=loss,
            metrics=metrics,
            loss_fn_outputs=loss_fn_outputs,
            payload_id=payload_id,
        )

        forward_backward_result.additional_properties = d
        return forward_backward_result

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
        "loss",
    ],
    "properties": {
        "loss": {},
        "metrics": {},
        "loss_fn_outputs": {},
        "payload_id": {},
    },
}
