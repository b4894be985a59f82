from enum import StrEnum


class EventType(StrEnum):
    PLANT_CREATED = "plant.created"
    PLANT_DELETED = "plant.deleted"
    PLANT_UPDATED = "plant.updated"

    def __str__(self) -> str:
        return str(self.value)
