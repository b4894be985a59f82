from enum import StrEnum


class WebhookPayload(StrEnum):
    EVENT = "event"
    PLANT = "plant"
    THIN = "thin"

    def __str__(self) -> str:
        return str(self.value)
