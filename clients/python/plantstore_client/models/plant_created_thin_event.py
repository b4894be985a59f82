from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.plant_created_thin_event_data import PlantCreatedThinEventData


T = TypeVar("T", bound="PlantCreatedThinEvent")


@_attrs_define
class PlantCreatedThinEvent:
    """plant.created: the Event with the plant's id alone as its data (payload "thin")

    Attributes:
        created_at (datetime.datetime): When the change was made; RFC 3339, UTC
        data (PlantCreatedThinEventData):
        id (str): Opaque, URL-safe, at most 64 characters: give it as `after` to read what came after it
        type_ (Literal['plant.created']):
    """

    created_at: datetime.datetime
    data: PlantCreatedThinEventData
    id: str
    type_: Literal["plant.created"]

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        data = self.data.to_dict()

        id = self.id

        type_ = self.type_

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
        from ..models.plant_created_thin_event_data import PlantCreatedThinEventData  # noqa: PLC0415

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        data = PlantCreatedThinEventData.from_dict(d.pop("data"))

        id = d.pop("id")

        type_ = cast(Literal["plant.created"], d.pop("type"))
        if type_ != "plant.created":
            raise ValueError(f"type must match const 'plant.created', got '{type_}'")

        plant_created_thin_event = cls(
            created_at=created_at,
            data=data,
            id=id,
            type_=type_,
        )

        return plant_created_thin_event
