from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="NewWebhookSecret")


@_attrs_define
class NewWebhookSecret:
    """
    Attributes:
        secret (str): Shown this once: `whsec_` and the base64 of the signing key, as a Standard Webhooks library takes
            it
    """

    secret: str

    def to_dict(self) -> dict[str, Any]:
        secret = self.secret

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "secret": secret,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        secret = d.pop("secret")

        new_webhook_secret = cls(
            secret=secret,
        )

        return new_webhook_secret
