from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PlantUpdatedThinEventData")


@_attrs_define
class PlantUpdatedThinEventData:
    """
    Attributes:
        id (int): Identification number of the plant: a JSON integer written without a fraction or exponent (1.0 is
            refused)
    """

    id: int

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        plant_updated_thin_event_data = cls(
            id=id,
        )

        return plant_updated_thin_event_data
