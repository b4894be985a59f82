"""Each setting declared once, as a Setting in its feature's tuple: the defaults, the checks,
the typed settings a feature reads and the table of docs/configuration.md all come from these."""

from collections.abc import Callable
from dataclasses import make_dataclass
from typing import Any, NamedTuple, get_type_hints

PREFIX = "PLANTSTORE_"


class Setting(NamedTuple):
    """One setting: ``PLANTSTORE_<name>``, its default, the converter that checks a value given
    and returns it typed (app/config_errors.py), and its meaning, one line of the docs table.

    default_meaning says what the default stands for when its value alone does not ("7 days").
    """

    name: str
    default: Any
    convert: Callable[[str, Any], Any]
    meaning: str
    default_meaning: str = ""

    @property
    def variable(self):
        """The environment variable: the name with its prefix."""
        return PREFIX + self.name


class Feature(NamedTuple):
    """A part's settings, in the order they are checked, under title in the docs.

    field_prefix is what the typed settings' field names leave out (``WEBHOOK_TIMEOUT`` is
    ``timeout``); cross_check(given, values), if any, checks rules across settings once each is
    converted, given the values as given and as converted, and raises the first broken one's
    ConfigError; about is a line under the title.
    """

    title: str
    settings: tuple
    field_prefix: str = ""
    cross_check: Callable[[dict, dict], None] | None = None
    about: str = ""

    def field(self, setting):
        """The typed settings' field of a setting: its name, without the prefix, lower-cased."""
        return setting.name.removeprefix(self.field_prefix).lower()

    def typed_class(self, name, doc):
        """A frozen dataclass named name with a field per setting, typed as its converter
        returns (Any where it does not say), which typed() fills."""
        fields = [
            (self.field(setting), get_type_hints(setting.convert).get("return", Any))
            for setting in self.settings
        ]
        return make_dataclass(name, fields, frozen=True, namespace={"__doc__": doc})

    def typed(self, cls, config):
        """An instance of cls (made by typed_class) holding the checked values of config."""
        return cls(**{self.field(setting): config[setting.name] for setting in self.settings})


def defaults(features):
    """Every setting's default, by name."""
    return {setting.name: setting.default for feature in features for setting in feature.settings}


def check(features, config):
    """Convert each setting of config (a Flask Config) in place, feature by feature; raise the
    ConfigError of the first bad one."""
    for feature in features:
        given = {setting.name: config[setting.name] for setting in feature.settings}
        for setting in feature.settings:
            config[setting.name] = setting.convert(setting.variable, config[setting.name])
        if feature.cross_check is not None:
            feature.cross_check(given, config)
