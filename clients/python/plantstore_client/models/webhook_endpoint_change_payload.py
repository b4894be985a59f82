from enum import StrEnum


class WebhookEndpointChangePayload(StrEnum):
    EVENT = "event"
    PLANT = "plant"
    THIN = "thin"

    def __str__(self) -> str:
        return str(self.value)
