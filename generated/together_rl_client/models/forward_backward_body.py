from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.loss_config import LossConfig
    from ..models.sample import Sample


T = TypeVar("T", bound="ForwardBackwardBody")


@_attrs_define
class ForwardBackwardBody:
    """A forward-backward request. The user's documentation describes only the two flags; the
    official SDK requires `samples` and `loss` and omits flags that are not set.

        Attributes:
            samples (list[Sample]): The batch of training samples.
            loss (LossConfig): The loss function and its parameters. Only the params object that matches `type` is
                read; a params object of another loss is accepted and ignored (the official SDK refuses
                to send one because "the server would otherwise drop it silently",
                `together==3.1.1 together/post_training/_request_types.py LossConfig`; the user's
                documentation shows five params objects at once). `LOSS_TYPE_IMPORTANCE_SAMPLING` has none
                and `LOSS_TYPE_DRO` requires `dro_params`.
            forward_only (bool | Unset): Run the forward pass only: report the loss and metrics, and the per-sample outputs
                when
                requested, without accumulating gradients. Pair it with `return_loss_fn_outputs` to
                score a batch and read back its per-token log-probabilities. Omitted: false.
            return_loss_fn_outputs (bool | Unset): Return the per-sample output tensors
                (`output.loss_fn_outputs[i].tensors.logprobs`)
                alongside the loss and metrics. Increases the response size substantially for large
                batches; leave it unset for ordinary training steps. Omitted: false.
            payload_id (str | Unset): Set by the official SDK's hand-written layer (not its typed API) when it uploaded the
                full body through `POST .../payloads/upload-url`; the rest of this body is then a
                shrunk stand-in and the uploaded body is the one validated and run.
    """

    samples: list[Sample]
    loss: LossConfig
    forward_only: bool | Unset = UNSET
    return_loss_fn_outputs: bool | Unset = UNSET
    payload_id: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        samples = []
        for samples_item_data in self.samples:
            samples_item = samples_item_data.to_dict()
            samples.append(samples_item)

        loss = self.loss.to_dict()

        forward_only = self.forward_only

        return_loss_fn_outputs = self.return_loss_fn_outputs

        payload_id = self.payload_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "samples": samples,
                "loss": loss,
            }
        )
        if forward_only is not UNSET:
            field_dict["forward_only"] = forward_only
        if return_loss_fn_outputs is not UNSET:
            field_dict["return_loss_fn_outputs"] = return_loss_fn_outputs
        if payload_id is not UNSET:
            field_dict["payload_id"] = payload_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        from ..models.loss_config import LossConfig
        from ..models.sample import Sample

        d = dict(src_dict)
        samples = []
        _samples = d.pop("samples")
        for samples_item_data in _samples:
            samples_item = Sample.from_dict(samples_item_data)

            samples.append(samples_item)

        loss = LossConfig.from_dict(d.pop("loss"))

        forward_only = d.pop("forward_only", UNSET)

        return_loss_fn_outputs = d.pop("return_loss_fn_outputs", UNSET)

        payload_id = d.pop("payload_id", UNSET)

        forward_backward_body = cls(
            samples=samples,
            loss=loss,
            forward_only=forward_only,
            return_loss_fn_outputs=return_loss_fn_outputs,
            payload_id=payload_id,
        )

        return forward_backward_body


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [
        "samples",
        "loss",
    ],
    "properties": {
        "samples": {
            "minItems": 1,
        },
        "loss": {
            "class": "LossConfig",
        },
        "forward_only": {
            "x-server-default": False,
        },
        "return_loss_fn_outputs": {
            "x-server-default": False,
        },
        "payload_id": {
            "minLength": 1,
        },
    },
}
