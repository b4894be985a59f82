"""When the worker disables an endpoint: at once after a 410 Gone, or when its attempts have
all failed for PLANTSTORE_WEBHOOK_DISABLE_AFTER seconds and the next one fails too."""

from ..receivers import is_endpoint
from ..tables import disables, endpoints
from ..tables.endpoints import rounds

GONE = 410


def judge(cursor, outcomes, disable_after, known):
    """Disable each endpoint that answered 410 Gone to any of its outcomes (Outcomes); follow
    the others' failures by the last of their outcomes, and disable those that must be: in the
    cursor's transaction. [(endpoint id, reason, counted as)] of those disabled, for count().

    known is {endpoint id: its Endpoint (rounds.for_worker)} as read in this transaction:
    an endpoint's failure time is written only when it changes. Disabling fails the endpoint's
    pending deliveries in the same transaction: no crash can leave an endpoint disabled with
    deliveries still pending.
    """
    ours = [outcome for outcome in outcomes if is_endpoint(outcome.receiver)]
    last = {outcome.receiver: outcome for outcome in ours}
    # Any 410 of the round: a 500, a timeout or a 2xx after it in the batch must not mask it.
    gone = {outcome.receiver for outcome in ours if outcome.response_status == GONE}
    disabled = []
    for endpoint_id, outcome in last.items():
        endpoint = known.get(endpoint_id)
        if endpoint is None:  # deleted
            continue
        if endpoint_id in gone:
            if endpoints.disable(cursor, endpoint_id, endpoints.DISABLED_GONE):
                endpoints.extend_timeline(cursor, endpoint_id)
                disabled.append((endpoint_id, endpoints.DISABLED_GONE, "gone"))
            continue
        if _fails_for_long(cursor, endpoint, outcome, disable_after):
            endpoints.extend_timeline(cursor, endpoint_id)
            disabled.append((endpoint_id, endpoints.DISABLED_FAILING, "failing"))
    return disabled


def _fails_for_long(cursor, endpoint, outcome, disable_after):
    # Follow the endpoint's failures by its last outcome; whether that disabled it. How long
    # it has failed is the database's to say: its clock wrote failing_since.
    if outcome.error is None:
        if endpoint.failing_since is not None:
            rounds.clear_failing(cursor, endpoint.id)
        return False
    if endpoint.failing_since is None:
        rounds.mark_failing(cursor, endpoint.id)
        # Newly failing: it has failed for no time at all, which only a limit of 0 disables.
        if disable_after > 0:
            return False
    return rounds.disable_failing(cursor, endpoint.id, disable_after)


def count(cursor, disabled):
    """Count the endpoints judge() disabled on /metrics: last in the transaction, so that the
    counter's row is held to the commit alone, never while a delivery row is awaited."""
    for _, _, counted in disabled:
        disables.count_disable(cursor, counted)
