"""Contains all the data models used in inputs/outputs"""

from .error import Error
from .healthz_response_200 import HealthzResponse200
from .healthz_response_200_status import HealthzResponse200Status
from .livez_response_200 import LivezResponse200
from .livez_response_200_status import LivezResponse200Status
from .new_plant import NewPlant
from .openapi_document_response_200 import OpenapiDocumentResponse200
from .plant import Plant
from .stored_plant import StoredPlant

__all__ = (
    "Error",
    "HealthzResponse200",
    "HealthzResponse200Status",
    "LivezResponse200",
    "LivezResponse200Status",
    "NewPlant",
    "OpenapiDocumentResponse200",
    "Plant",
    "StoredPlant",
)
