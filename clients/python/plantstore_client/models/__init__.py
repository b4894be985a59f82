"""Contains all the data models used in inputs/outputs"""

from .catalog_entry import CatalogEntry
from .catalog_entry_schema import CatalogEntrySchema
from .created_webhook_endpoint import CreatedWebhookEndpoint
from .delivery import Delivery
from .delivery_status import DeliveryStatus
from .error import Error
from .event import Event
from .event_data import EventData
from .event_type import EventType
from .healthz_response_200 import HealthzResponse200
from .healthz_response_200_status import HealthzResponse200Status
from .list_deliveries_status import ListDeliveriesStatus
from .livez_response_200 import LivezResponse200
from .livez_response_200_status import LivezResponse200Status
from .new_plant import NewPlant
from .new_webhook_endpoint import NewWebhookEndpoint
from .new_webhook_secret import NewWebhookSecret
from .openapi_document_response_200 import OpenapiDocumentResponse200
from .plant import Plant
from .plant_change import PlantChange
from .plant_created_data import PlantCreatedData
from .plant_created_event import PlantCreatedEvent
from .plant_created_thin_event import PlantCreatedThinEvent
from .plant_created_thin_event_data import PlantCreatedThinEventData
from .plant_deleted_data import PlantDeletedData
from .plant_deleted_event import PlantDeletedEvent
from .plant_deleted_thin_event import PlantDeletedThinEvent
from .plant_deleted_thin_event_data import PlantDeletedThinEventData
from .plant_updated_data import PlantUpdatedData
from .plant_updated_event import PlantUpdatedEvent
from .plant_updated_thin_event import PlantUpdatedThinEvent
from .plant_updated_thin_event_data import PlantUpdatedThinEventData
from .problem import Problem
from .problem_item import ProblemItem
from .recovery import Recovery
from .stored_plant import StoredPlant
from .webhook_endpoint import WebhookEndpoint
from .webhook_endpoint_change import WebhookEndpointChange
from .webhook_payload import WebhookPayload

__all__ = (
    "CatalogEntry",
    "CatalogEntrySchema",
    "CreatedWebhookEndpoint",
    "Delivery",
    "DeliveryStatus",
    "Error",
    "Event",
    "EventData",
    "EventType",
    "HealthzResponse200",
    "HealthzResponse200Status",
    "ListDeliveriesStatus",
    "LivezResponse200",
    "LivezResponse200Status",
    "NewPlant",
    "NewWebhookEndpoint",
    "NewWebhookSecret",
    "OpenapiDocumentResponse200",
    "Plant",
    "PlantChange",
    "PlantCreatedData",
    "PlantCreatedEvent",
    "PlantCreatedThinEvent",
    "PlantCreatedThinEventData",
    "PlantDeletedData",
    "PlantDeletedEvent",
    "PlantDeletedThinEvent",
    "PlantDeletedThinEventData",
    "PlantUpdatedData",
    "PlantUpdatedEvent",
    "PlantUpdatedThinEvent",
    "PlantUpdatedThinEventData",
    "Problem",
    "ProblemItem",
    "Recovery",
    "StoredPlant",
    "WebhookEndpoint",
    "WebhookEndpointChange",
    "WebhookPayload",
)
