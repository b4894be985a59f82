from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.delivery_status import DeliveryStatus

T = TypeVar("T", bound="Delivery")


@_attrs_define
class Delivery:
    """
    Attributes:
        attempts (int): Attempts made since the last (re)send
        created_at (datetime.datetime): When the event happened; RFC 3339, UTC
        event (str): The event type
        id (str): The webhook-id the endpoint got
        last_attempt_at (datetime.datetime | None): When it was last tried; null before the first try
        last_error (None | str): Why the last attempt failed
        next_attempt_at (datetime.datetime | None): When it is tried next; null unless pending
        response_body (None | str): The first 1024 bytes of the last answer's body, decoded as UTF-8: U+FFFD for what
            does not decode (a character cut at the 1024th byte included) and for NUL; "" for an empty body, null when there
            was no answer
        response_status (int | None): The status of the last answer; null when there was none
        status (DeliveryStatus): Where the delivery stands
    """

    attempts: int
    created_at: datetime.datetime
    event: str
    id: str
    last_attempt_at: datetime.datetime | None
    last_error: None | str
    next_attempt_at: datetime.datetime | None
    response_body: None | str
    response_status: int | None
    status: DeliveryStatus

    def to_dict(self) -> dict[str, Any]:
        attempts = self.attempts

        created_at = self.created_at.isoformat()

        event = self.event

        id = self.id

        last_attempt_at: None | str
        if isinstance(self.last_attempt_at, datetime.datetime):
            last_attempt_at = self.last_attempt_at.isoformat()
        else:
            last_attempt_at = self.last_attempt_at

        last_error: None | str
        last_error = self.last_error

        next_attempt_at: None | str
        if isinstance(self.next_attempt_at, datetime.datetime):
            next_attempt_at = self.next_attempt_at.isoformat()
        else:
            next_attempt_at = self.next_attempt_at

        response_body: None | str
        response_body = self.response_body

        response_status: int | None
        response_status = self.response_status

        status = self.status.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "attempts": attempts,
                "created_at": created_at,
                "event": event,
                "id": id,
                "last_attempt_at": last_attempt_at,
                "last_error": last_error,
                "next_attempt_at": next_attempt_at,
                "response_body": response_body,
                "response_status": response_status,
                "status": status,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        attempts = d.pop("attempts")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        event = d.pop("event")

        id = d.pop("id")

        def _parse_last_attempt_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_attempt_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_attempt_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_attempt_at = _parse_last_attempt_at(d.pop("last_attempt_at"))

        def _parse_last_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_error = _parse_last_error(d.pop("last_error"))

        def _parse_next_attempt_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_attempt_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_attempt_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("next_attempt_at"))

        def _parse_response_body(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        response_body = _parse_response_body(d.pop("response_body"))

        def _parse_response_status(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        response_status = _parse_response_status(d.pop("response_status"))

        status = DeliveryStatus(d.pop("status"))

        delivery = cls(
            attempts=attempts,
            created_at=created_at,
            event=event,
            id=id,
            last_attempt_at=last_attempt_at,
            last_error=last_error,
            next_attempt_at=next_attempt_at,
            response_body=response_body,
            response_status=response_status,
            status=status,
        )

        return delivery
