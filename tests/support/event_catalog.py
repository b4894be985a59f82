"""What the tests of the event catalog share: its entries by type, and the check that events
satisfy their type's schema, with a JSON Schema validator nobody here wrote."""

from jsonschema import Draft202012Validator

# The contract's table under "Events", in its order, which the catalog keeps.
TYPES = ["plant.created", "plant.updated", "plant.deleted"]


def schemas_by_type(entries):
    """{type: schema} of the catalog's entries (the body of a 200 of GET /event-types)."""
    return {entry["type"]: entry["schema"] for entry in entries}


def assert_described(entries, events):
    """Assert that the data of each of events (as GET /events shows them) validates against
    its type's schema in the catalog's entries."""
    schemas = schemas_by_type(entries)
    for event in events:
        Draft202012Validator(schemas[event["type"]]).validate(event["data"])
