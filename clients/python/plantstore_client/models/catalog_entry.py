from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.event_type import EventType

if TYPE_CHECKING:
    from ..models.catalog_entry_schema import CatalogEntrySchema


T = TypeVar("T", bound="CatalogEntry")


@_attrs_define
class CatalogEntry:
    """
    Attributes:
        description (str): What happened, and who is sent the event
        schema (CatalogEntrySchema): The JSON Schema (draft 2020-12) of the type's data, the body that a delivery under
            the payload "plant" carries: every event of the type in the feed validates against it, and it allows no key the
            service does not send
        type_ (EventType): A kind of event, as the webhooks section describes each.
    """

    description: str
    schema: CatalogEntrySchema
    type_: EventType

    def to_dict(self) -> dict[str, Any]:
        description = self.description

        schema = self.schema.to_dict()

        type_ = self.type_.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "description": description,
                "schema": schema,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.catalog_entry_schema import CatalogEntrySchema  # noqa: PLC0415

        d = dict(src_dict)
        description = d.pop("description")

        schema = CatalogEntrySchema.from_dict(d.pop("schema"))

        type_ = EventType(d.pop("type"))

        catalog_entry = cls(
            description=description,
            schema=schema,
            type_=type_,
        )

        return catalog_entry
