from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Plant")


@_attrs_define
class Plant:
    """
    Attributes:
        name (str): The name of the plant
        tag (str | Unset): A tag that specifies the type of the plant
    """

    name: str
    tag: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        tag = self.tag

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
            }
        )
        if tag is not UNSET:
            field_dict["tag"] = tag

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        tag = d.pop("tag", UNSET)

        plant = cls(
            name=name,
            tag=tag,
        )

        return plant
