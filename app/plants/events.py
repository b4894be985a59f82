"""The events plants announce, and their bodies."""

from ..events import EventType
from .schemas import NewPlantSchema

CREATED = EventType(
    name="plant.created",
    summary="A plant was created.",
    description="Sent once a new plant is stored (never for a replayed create), to every "
    "receiver, with the NewPlant as its JSON body.",
    operation_id="plantCreated",
    body=NewPlantSchema,
)

EVENT_TYPES = (CREATED,)
