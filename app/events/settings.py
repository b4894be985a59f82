"""The feed's settings: how long an event is kept. app/config.py checks them with every other
setting at start (app/__init__.py adds them); the feature reads the checked value."""

from dataclasses import dataclass

from ..config_errors import require_seconds

DEFAULTS = {
    # Seconds an event stays in the feed (GET /events), whose events the webhooks deliver.
    "EVENT_RETENTION": 30 * 24 * 3600,
}

# Where the app keeps its EventSettings.
EXTENSION = "plantstore.event_settings"


@dataclass(frozen=True)
class EventSettings:
    """The feed's settings as checked, read once at start: retention, in seconds."""

    retention: float


def check(config):
    """Convert the feed's settings of config (a Flask Config) to their values, in place."""
    require_seconds(config, "EVENT_RETENTION")


def init_app(app):
    """Read the checked settings of app.config once, into the EventSettings of(app) gives."""
    app.extensions[EXTENSION] = EventSettings(app.config["EVENT_RETENTION"])


def of(app):
    """The app's EventSettings."""
    return app.extensions[EXTENSION]
