"""The plants table against the StoredPlant: every column is a field of a stored plant, or one
the service keeps to itself (``store.INTERNAL``). A column added to the table and to neither
fails here (docs/development.md, adding a field to a plant)."""

import pytest

from app.plants import store
from app.plants.schemas import StoredPlantSchema

STORED_PLANT = {field.data_key or name for name, field in StoredPlantSchema().fields.items()}
COLUMNS = store.plants.c.keys()


@pytest.mark.parametrize("column", COLUMNS)
def test_each_column_of_plants_is_a_field_of_the_stored_plant_or_internal(column):
    assert (column in STORED_PLANT) != (column in store.INTERNAL), (
        f"plants.{column} must be a field of StoredPlant (app/plants/schemas.py) or be named "
        "in store.INTERNAL, and not both"
    )


def test_each_field_of_the_stored_plant_and_each_internal_name_is_a_column_of_plants():
    assert set(COLUMNS) >= STORED_PLANT | store.INTERNAL


def test_a_plant_is_its_fields_in_the_tables_order():
    assert set(store.FIELDS) == STORED_PLANT
    assert list(store.FIELDS) == [key for key in COLUMNS if key in STORED_PLANT]
