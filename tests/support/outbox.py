"""Deliveries written straight into the outbox, as many as a case needs of each status."""

import datetime

T0 = datetime.datetime(2026, 11, 1, tzinfo=datetime.UTC)


def delivery_rows(status, count, start=0, receiver="https://r.example/"):
    """count rows of deliveries of status to receiver, created a second apart from T0 +
    start seconds, due (or delivered) at T0; ids are the status's initial and the number."""
    return [
        {
            "id": f"{status[0]}{start + n:031d}",
            "receiver": receiver,
            "event_type": "plant.created",
            "body": "{}",
            "status": status,
            "attempts": 1,
            "created_at": T0 + datetime.timedelta(seconds=start + n),
            "next_attempt_at": T0,
            "last_error": "HTTP 500" if status == "failed" else None,
        }
        for n in range(count)
    ]
