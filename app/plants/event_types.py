"""The event types a change of a plant writes to the events feed, and their bodies."""

from ..events import EventType
from .schemas import NewPlantSchema, StoredPlantSchema

CREATED = EventType(
    name="plant.created",
    summary="A plant was created.",
    description="Sent once a new plant is stored (never for a replayed create), to the "
    "operator's receivers and to every endpoint subscribed to it. Its data is the NewPlant.",
    operation_id="plantCreated",
    body=NewPlantSchema,
    operator=True,
)
UPDATED = EventType(
    name="plant.updated",
    summary="A plant was changed.",
    description="Sent once a PATCH changes a plant (never for one that changes nothing), to "
    "every endpoint subscribed to it. Its data is the StoredPlant as it now is.",
    operation_id="plantUpdated",
    body=StoredPlantSchema,
)
DELETED = EventType(
    name="plant.deleted",
    summary="A plant was deleted.",
    description="Sent once a plant is deleted (a 204), to every endpoint subscribed to it. Its "
    "data is the StoredPlant that was deleted.",
    operation_id="plantDeleted",
    body=StoredPlantSchema,
)

# In the contract's order, which the catalog (GET /event-types) and the document keep.
EVENT_TYPES = (CREATED, UPDATED, DELETED)
