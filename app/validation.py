"""What every feature's schemas check alike: text a database stores as it is, its longest
length, integers written in a URL, and JSON's own booleans."""

import re

from marshmallow import ValidationError, fields

# The most characters of a name, a tag or a description: each is a VARCHAR(255) column.
TEXT_MAX = 255
# The document's pattern of text that clean_text takes: no NUL character (an unpaired surrogate
# is refused too, which no pattern can say).
NO_NUL = "^[^\\x00]*$"


def clean_text(value):
    """Refuse a string that holds a NUL character or an unpaired surrogate: neither is stored."""
    if "\x00" in value:
        raise ValidationError("Must not contain a NUL character.")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError("Must not contain an unpaired surrogate.") from None


class IntegerLiteral(fields.Integer):
    """An integer written in a URL as decimal digits with an optional minus sign."""

    LITERAL = re.compile(r"-?[0-9]{1,19}")

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, str) or not self.LITERAL.fullmatch(value):
            raise self.make_error("invalid")
        return super()._deserialize(int(value), attr, data, **kwargs)


class StrictBoolean(fields.Boolean):
    """A JSON true or false, and nothing that merely looks like one ("true", 1)."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value
