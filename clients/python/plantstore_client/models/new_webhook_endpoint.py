from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.event_type import EventType
from ..models.webhook_payload import WebhookPayload
from ..types import UNSET, Unset

T = TypeVar("T", bound="NewWebhookEndpoint")


@_attrs_define
class NewWebhookEndpoint:
    """
    Attributes:
        url (str): Where deliveries are POSTed: an absolute http:// or https:// URL without a fragment, whose host is,
            and resolves to, public addresses only
        description (str | Unset): What the endpoint is for Default: ''.
        enabled (bool | Unset): Whether the endpoint gets events; false fails its pending deliveries, to be recovered
            once it is enabled again Default: True.
        events (list[EventType] | Unset): The event types the endpoint gets; by default, every one
        payload (WebhookPayload | Unset):
        throttle_rate (int | None | Unset): The most attempts a second the endpoint gets, retries and resends included,
            over every worker and host; null: no limit
    """

    url: str
    description: str | Unset = ""
    enabled: bool | Unset = True
    events: list[EventType] | Unset = UNSET
    payload: WebhookPayload | Unset = UNSET
    throttle_rate: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        description = self.description

        enabled = self.enabled

        events: list[str] | Unset = UNSET
        if not isinstance(self.events, Unset):
            events = []
            for events_item_data in self.events:
                events_item = events_item_data.value
                events.append(events_item)

        payload: str | Unset = UNSET
        if not isinstance(self.payload, Unset):
            payload = self.payload.value

        throttle_rate: int | None | Unset
        if isinstance(self.throttle_rate, Unset):
            throttle_rate = UNSET
        else:
            throttle_rate = self.throttle_rate

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "url": url,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if events is not UNSET:
            field_dict["events"] = events
        if payload is not UNSET:
            field_dict["payload"] = payload
        if throttle_rate is not UNSET:
            field_dict["throttle_rate"] = throttle_rate

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        url = d.pop("url")

        description = d.pop("description", UNSET)

        enabled = d.pop("enabled", UNSET)

        _events = d.pop("events", UNSET)
        events: list[EventType] | Unset = UNSET
        if _events is not UNSET:
            events = []
            for events_item_data in _events:
                events_item = EventType(events_item_data)

                events.append(events_item)

        _payload = d.pop("payload", UNSET)
        payload: WebhookPayload | Unset
        if isinstance(_payload, Unset):
            payload = UNSET
        else:
            payload = WebhookPayload(_payload)

        def _parse_throttle_rate(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        throttle_rate = _parse_throttle_rate(d.pop("throttle_rate", UNSET))

        new_webhook_endpoint = cls(
            url=url,
            description=description,
            enabled=enabled,
            events=events,
            payload=payload,
            throttle_rate=throttle_rate,
        )

        return new_webhook_endpoint
