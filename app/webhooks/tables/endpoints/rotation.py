"""An endpoint's secrets: a new one signs at once, the ones it replaces until their overlaps
end (three at most sign at once)."""

from sqlalchemy import bindparam, case, update

from ....database import Now, Statement
from . import webhook_endpoints

c = webhook_endpoints.c
# The previous secret, while its own overlap lasts, becomes the older one; an older one still in
# its overlap is dropped, the oldest of three.
_OVERLAPPING = c.previous_until > Now()
ROTATE = Statement(
    update(webhook_endpoints)
    .where(c.id == bindparam("id"))
    .values(
        older_secret=case((_OVERLAPPING, c.previous_secret)),
        older_until=case((_OVERLAPPING, c.previous_until)),
        previous_secret=c.secret,
        previous_until=Now("until", later=True),
        secret=bindparam("secret"),
    )
)


def rotate(db, endpoint_id, sealed_secret, overlap):
    """Sign with a new sealed secret, and with the current one too for overlap seconds (by the
    database's clock), and
    with the previous one until its own overlap ends; False when there is no such endpoint."""
    values = {
        "id": endpoint_id,
        "secret": sealed_secret,
        "until": overlap,
    }
    with db.transaction() as cursor:
        ROTATE.execute(cursor, values)
        return cursor.rowcount == 1
