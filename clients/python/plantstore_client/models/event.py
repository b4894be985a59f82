from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.event_type import EventType

if TYPE_CHECKING:
    from ..models.event_data import EventData


T = TypeVar("T", bound="Event")


@_attrs_define
class Event:
    """
    Attributes:
        created_at (datetime.datetime): When the change was made; RFC 3339, UTC
        data (EventData): The body that a webhook delivery of this type carries (see the webhooks section)
        id (str): Opaque, URL-safe, at most 64 characters: give it as `after` to read what came after it
        type_ (EventType): A kind of event, as the webhooks section describes each.
    """

    created_at: datetime.datetime
    data: EventData
    id: str
    type_: EventType

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        data = self.data.to_dict()

        id = self.id

        type_ = self.type_.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "created_at": created_at,
                "data": data,
                "id": id,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_data import EventData  # noqa: PLC0415

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        data = EventData.from_dict(d.pop("data"))

        id = d.pop("id")

        type_ = EventType(d.pop("type"))

        event = cls(
            created_at=created_at,
            data=data,
            id=id,
            type_=type_,
        )

        return event
