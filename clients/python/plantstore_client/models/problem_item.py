from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ProblemItem")


@_attrs_define
class ProblemItem:
    """
    Attributes:
        detail (str): What is wrong with it
        parameter (str | Unset): The offending query or path parameter
        pointer (str | Unset): The offending field of the JSON body: a JSON Pointer (RFC 6901) in a URI fragment
    """

    detail: str
    parameter: str | Unset = UNSET
    pointer: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        detail = self.detail

        parameter = self.parameter

        pointer = self.pointer

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "detail": detail,
            }
        )
        if parameter is not UNSET:
            field_dict["parameter"] = parameter
        if pointer is not UNSET:
            field_dict["pointer"] = pointer

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        detail = d.pop("detail")

        parameter = d.pop("parameter", UNSET)

        pointer = d.pop("pointer", UNSET)

        problem_item = cls(
            detail=detail,
            parameter=parameter,
            pointer=pointer,
        )

        return problem_item
