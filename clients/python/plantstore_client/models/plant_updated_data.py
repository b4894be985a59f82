from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PlantUpdatedData")


@_attrs_define
class PlantUpdatedData:
    """plant.updated: the data alone (payload "plant")

    Attributes:
        id (int): Identification number of the plant: a JSON integer written without a fraction or exponent (1.0 is
            refused)
        name (str): The name of the plant
        tag (str | Unset): A tag that specifies the type of the plant
    """

    id: int
    name: str
    tag: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        tag = self.tag

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "name": name,
            }
        )
        if tag is not UNSET:
            field_dict["tag"] = tag

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        tag = d.pop("tag", UNSET)

        plant_updated_data = cls(
            id=id,
            name=name,
            tag=tag,
        )

        return plant_updated_data
