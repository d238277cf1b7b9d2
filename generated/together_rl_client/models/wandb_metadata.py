from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="WandbMetadata")


@_attrs_define
class WandbMetadata:
    """
    Attributes:
        entity (str | Unset):
        group (str | Unset):
        project (str | Unset):
        run_id (str | Unset):
        run_name (str | Unset):
        url (str | Unset):
    """

    entity: str | Unset = UNSET
    group: str | Unset = UNSET
    project: str | Unset = UNSET
    run_id: str | Unset = UNSET
    run_name: str | Unset = UNSET
    url: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of this object (the wire names, unset fields left out)."""
        entity = self.entity

        group = self.group

        project = self.project

        run_id = self.run_id

        run_name = self.run_name

        url = self.url

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if entity is not UNSET:
            field_dict["entity"] = entity
        if group is not UNSET:
            field_dict["group"] = group
        if project is not UNSET:
            field_dict["project"] = project
        if run_id is not UNSET:
            field_dict["run_id"] = run_id
        if run_name is not UNSET:
            field_dict["run_name"] = run_name
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        """An instance from its JSON value (raises ``KeyError``, ``TypeError`` or ``ValueError``
        when the value does not fit the schema)."""
        d = dict(src_dict)
        entity = d.pop("entity", UNSET)

        group = d.pop("group", UNSET)

        project = d.pop("project", UNSET)

        run_id = d.pop("run_id", UNSET)

        run_name = d.pop("run_name", UNSET)

        url = d.pop("url", UNSET)

        wandb_metadata = cls(
            entity=entity,
            group=group,
            project=project,
            run_id=run_id,
            run_name=run_name,
            url=url,
        )

        return wandb_metadata


#: The spec's description of this schema beyond the types: ``required`` names, and per property
#: its bounds, lengths and default as written in the spec (``class``: the generated class of a
#: property that names another schema), and the spec's ``x-`` rule keywords of the schema and of
#: each property, as written (not ``x-source``, nor the prose ``x-rules`` no code reads).
SCHEMA: dict[str, Any] = {
    "required": [],
    "properties": {
        "entity": {},
        "group": {},
        "project": {},
        "run_id": {},
        "run_name": {},
        "url": {},
    },
}
