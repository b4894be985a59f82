from enum import StrEnum


class CreatedWebhookEndpointPayload(StrEnum):
    EVENT = "event"
    PLANT = "plant"
    THIN = "thin"

    def __str__(self) -> str:
        return str(self.value)
