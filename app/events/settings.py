"""The feed's settings, declared once: how long an event is kept. app/config.py checks them
with every other at start; the feature reads the checked values, typed (EventSettings)."""

from ..config_errors import seconds
from ..config_spec import Feature, Setting

FEATURE = Feature(
    "The events feed",
    (
        Setting(
            "EVENT_RETENTION",
            30 * 24 * 3600,
            seconds,
            "seconds an event stays in the feed (`GET /events`, see "
            "[the events feed](events.md#retention-and-the-410)) before the worker or "
            "`events prune` deletes it, once the webhooks' fan-out has read it; a follower past "
            "a deleted event gets a 410",
            "30 days",
        ),
    ),
    field_prefix="EVENT_",
)

EventSettings = FEATURE.typed_class(
    "EventSettings", "The feed's settings as checked, read once at start: retention, in seconds."
)

# Where the app keeps its EventSettings.
EXTENSION = "plantstore.event_settings"


def init_app(app):
    """Read the checked settings of app.config once, into the EventSettings of(app) gives."""
    app.extensions[EXTENSION] = FEATURE.typed(EventSettings, app.config)


def of(app):
    """The app's EventSettings."""
    return app.extensions[EXTENSION]
