"""The delivery worker, a process of its own (`flask webhooks run`): one event loop sends, one
thread talks to the database, once a round, in one transaction (``ledger.Ledger.round``), which
takes what the loop hands it and hands back what it decided (a ``ledger.Round``).

A delivery's life, and the one function that does each step:

1. Written. Every change writes one event to the feed, in its own transaction, whether or not
   anybody would receive it (``app/events/store.py``'s ``publish``, which the plants' store
   calls).
2. Fanned out. A round turns each event into one delivery per receiver, pending
   (``fanout.fan_out``, ``tables.deliveries.queue.new``, a ``tables.records.NewDelivery`` each,
   ``tables.deliveries.queue.insert``), and moves the fan-out's place in the feed past it.
3. Claimed. The same round leases the due deliveries each receiver's window wants
   (``windows.Windows.wants``, ``tables.deliveries.queue.claim``), then writes the new ones it
   still wants already leased, in the fan-out, both by one claim
   (``tables.records.Delivery.claimed``); they wait in its queue (``windows.Windows.hold``).
4. Sent. One attempt, signed with the receiver's keys (``loop.Worker._attempt``,
   ``sender.Sender.send``, ``targets.Targets``, which a round reads anew once an endpoint
   changed: ``tables.endpoints.serial``).
5. Recorded. The attempt's Outcome (``retries.Retries.outcome``) is written in the next round
   (``tables.deliveries.queue.record``), with what it says of an endpoint
   (``disabling.judge``); a claimed delivery not sent is given back
   (``tables.deliveries.queue.release``).
6. Retried or kept. A failed attempt with attempts left stays pending, due after a backoff;
   with none left the delivery is kept as failed (``retries.Retries.outcome``), until an
   operator or the endpoint's owner sends it again (``tables.deliveries.totals.retry_failed``,
   ``tables.deliveries.endpoint_log.recover``).
7. Deleted. A delivered row goes once older than PLANTSTORE_WEBHOOK_RETENTION
   (``tables.deliveries.outbox.delete_delivered``); every row of an endpoint goes with it
   (``tables.endpoints.delete``).

A round's transaction does, in order: read, no row locked, the events waiting to be fanned out
and who has work (the receivers with a pending delivery, and those the events may go to); lock
the endpoints whose deliveries it writes or claims (ascending, before any delivery row, as the
API does), write the windows for /metrics (every half second, those that changed), the targets
(the endpoints, as kept or read again), record, judge (disable), give back, claim from those
with work, fan out (by each endpoint's timeline, read after the events), claim for the
throttled endpoints, count the endpoints disabled: the write lock once per round, whatever the
number of deliveries, and the statements of the work it has, whatever the number of endpoints.
Once a second, apart, ``ledger.Ledger.tidy`` deletes the oldest delivered rows past the
retention and settles the strays of endpoints disabled or deleted while a round read them;
among the receivers it lists, the worker takes up the operator's URLs no longer configured
(``loop.Worker._keep_other_receivers``). Once a minute it forgets the timelines' entries that
no waiting event can need.
"""

from .loop import Worker

__all__ = ["Worker"]
