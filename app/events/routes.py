"""The /events blueprint: the events feed, which any valid token reads, a page at a time, in the
feed's order (see store.py)."""

import orjson
from flask import Blueprint
from marshmallow import ValidationError
from werkzeug.exceptions import Gone

from .. import apidoc, auth, headers
from ..database import get_db
from ..jsonprovider import json_response
from . import cursors, ids, store
from .schemas import EXAMPLE_ID, NOT_GIVEN, EventSchema, FeedQuerySchema

bp = apidoc.tag(
    Blueprint("events", __name__, url_prefix="/events"),
    "The events feed: every change to the store, in one order, for clients that pull rather "
    "than receive webhooks. Any valid token reads it.",
)

NEXT_PAGE = {
    "description": 'On every page, an empty one too, `<URL of the next page>; rel="next"`: '
    "the same types and limit, after the last event of this page. Follow it, again once it "
    "is empty, to see each event once.",
    "schema": {"type": "string"},
    "example": f'<https://plants.example/events?limit=2&after={EXAMPLE_ID}>; rel="next"',
}
BAD_QUERY = (
    400,
    "A query parameter that is malformed, out of range, unknown or given more than once: "
    "`after` not an id the feed gave, an empty `types` or one naming no event type, a "
    "`limit` outside 1 to 1000. The message names each.",
    "after: Not an event id the feed gave: take it from an event, or from the Link header "
    "of the page before.",
)
DROPPED = (
    "Events after this one were dropped (older than PLANTSTORE_EVENT_RETENTION): read the "
    "feed again from its start, without after."
)
LOST = (
    "This event was written in another database cluster or timeline than the one the feed "
    "is on now (a restore, a copy or a failover), which may not have kept it: read the feed "
    "again from its start, without after."
)


@bp.get("")
@auth.required()
@apidoc.response(
    200, "A page of events, in the feed's order", EventSchema(many=True), {"Link": NEXT_PAGE}
)
@apidoc.error(*BAD_QUERY)
@apidoc.error(
    410,
    "Events after `after` were dropped by the retention, or `after` was written in a cluster "
    "or timeline the feed has left (a restore or a failover), which may not have kept it.",
    DROPPED,
)
@apidoc.arguments(FeedQuerySchema, "query")
def list_events(query):
    """Follow the events feed: every change, in order, a page at a time.

    At most `limit` events after the one named by `after` (from the oldest kept without it),
    of the listed `types` (every type by default). Follow the `Link` header's `rel="next"`
    URL, which every page carries, an empty one too, and again once it is empty: a follower
    sees each event exactly once, in the same order as every other reader, and an event
    committed after one written later is never skipped. Events are kept for
    PLANTSTORE_EVENT_RETENTION seconds: an `after` past which one was dropped is a 410, and the
    feed must be read again from its start; so is an `after` that the database the feed has
    moved to (a restore, a promoted replica) may never have seen.
    """
    given, types, limit = query.get("after"), query.get("types", ()), query["limit"]
    db = get_db()
    with db.cursor() as cursor:
        if given is None:
            after = cursors.where(cursor, cursors.DELETED)  # the oldest kept on
        else:
            after = ids.parse(given)
            standing = cursors.standing(db, cursor, after)
            if standing == cursors.NEVER:
                raise ValidationError({"after": [NOT_GIVEN]}, location="query")
            if standing == cursors.LOST:
                raise Gone(LOST)
        page, passed = store.page(cursor, after, types, limit)
        # Checked after the page is read: a deletion that the page already missed is seen too.
        dropped = given is not None and cursors.dropped_after(cursor, after)
    if dropped:
        raise Gone(DROPPED)
    # A filtered page goes on past the events of other types it went past, even when empty.
    last = ids.public_id(passed) if passed else given
    kept = {"types": ",".join(types)} if types else {}
    link = headers.next_page(".list_events", limit=limit, after=last, **kept)
    # Built here rather than dumped by EventSchema: each body goes out as the exact text
    # stored, never parsed again.
    response = json_response([_shown(event) for event in page])
    response.headers.update(link)
    return response


def _shown(event):
    return {
        "id": ids.public_id(event),
        "type": event.type,
        "created_at": event.created_at,
        "data": orjson.Fragment(event.body),
    }
