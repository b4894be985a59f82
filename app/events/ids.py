"""An event's place in the feed's order, (epoch, xid, id), and the id the feed and the
deliveries show for it: ev_<xid>_<id> in the first epoch, as every event had before epochs,
and ev_<epoch>_<xid>_<id> after; opaque to clients."""

import re
from typing import NamedTuple

BIGINT_MAX = 2**63 - 1
# Each number as the feed writes it: ASCII digits, no leading zero.
_NUMBER = "(0|[1-9][0-9]{0,18})"
ID = re.compile(f"ev_(?:{_NUMBER}_)?{_NUMBER}_{_NUMBER}")
# The pattern of an id, for the document.
PATTERN = f"^ev_({_NUMBER}_)?{_NUMBER}_{_NUMBER}$"


class Place(NamedTuple):
    """Where an event stands in the feed's order: the epoch of the cluster its transaction ran
    in (store.py), that transaction's id (0 on SQLite), and its own id."""

    epoch: int
    xid: int
    id: int


# Before every event.
START = Place(0, 0, 0)


def place_of(event):
    """The Place of an event read from the feed (an Event)."""
    return Place(event.epoch, event.xid, event.id)


def public_id(place):
    """The id of the event at place (a Place, or an Event)."""
    if place.epoch:
        return f"ev_{place.epoch}_{place.xid}_{place.id}"
    return f"ev_{place.xid}_{place.id}"


def parse(event_id):
    """The Place of an id the feed may have given, or None when it is not one."""
    found = ID.fullmatch(event_id)
    if found is None:
        return None
    epoch = 0 if found[1] is None else int(found[1])
    if found[1] is not None and epoch == 0:
        return None  # the first epoch's ids name no epoch
    place = Place(epoch, int(found[2]), int(found[3]))
    return place if max(place) <= BIGINT_MAX else None
