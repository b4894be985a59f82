from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.event_type import EventType
from ..models.webhook_payload import WebhookPayload

T = TypeVar("T", bound="CreatedWebhookEndpoint")


@_attrs_define
class CreatedWebhookEndpoint:
    """
    Attributes:
        created_at (datetime.datetime): RFC 3339, UTC
        description (str): What the endpoint is for
        disabled_reason (None | str): Why it is disabled; null while enabled
        enabled (bool): Whether the endpoint gets events; false fails its pending deliveries, to be recovered once it is
            enabled again
        events (list[EventType]): The event types the endpoint gets
        id (str): Assigned by the service; opaque
        payload (WebhookPayload):
        secret (str): Shown this once: `whsec_` and the base64 of the signing key, as a Standard Webhooks library takes
            it
        throttle_rate (int | None): The most attempts a second the endpoint gets, retries and resends included, over
            every worker and host; null: no limit
        url (str): Where deliveries are POSTed: an absolute http:// or https:// URL without a fragment, whose host is,
            and resolves to, public addresses only
    """

    created_at: datetime.datetime
    description: str
    disabled_reason: None | str
    enabled: bool
    events: list[EventType]
    id: str
    payload: WebhookPayload
    secret: str
    throttle_rate: int | None
    url: str

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        description = self.description

        disabled_reason: None | str
        disabled_reason = self.disabled_reason

        enabled = self.enabled

        events = []
        for events_item_data in self.events:
            events_item = events_item_data.value
            events.append(events_item)

        id = self.id

        payload = self.payload.value

        secret = self.secret

        throttle_rate: int | None
        throttle_rate = self.throttle_rate

        url = self.url

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "created_at": created_at,
                "description": description,
                "disabled_reason": disabled_reason,
                "enabled": enabled,
                "events": events,
                "id": id,
                "payload": payload,
                "secret": secret,
                "throttle_rate": throttle_rate,
                "url": url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        description = d.pop("description")

        def _parse_disabled_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        disabled_reason = _parse_disabled_reason(d.pop("disabled_reason"))

        enabled = d.pop("enabled")

        events = []
        _events = d.pop("events")
        for events_item_data in _events:
            events_item = EventType(events_item_data)

            events.append(events_item)

        id = d.pop("id")

        payload = WebhookPayload(d.pop("payload"))

        secret = d.pop("secret")

        def _parse_throttle_rate(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        throttle_rate = _parse_throttle_rate(d.pop("throttle_rate"))

        url = d.pop("url")

        created_webhook_endpoint = cls(
            created_at=created_at,
            description=description,
            disabled_reason=disabled_reason,
            enabled=enabled,
            events=events,
            id=id,
            payload=payload,
            secret=secret,
            throttle_rate=throttle_rate,
            url=url,
        )

        return created_webhook_endpoint
