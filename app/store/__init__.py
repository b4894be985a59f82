"""The webhook outbox's table and SQL, until the webhooks package takes them in."""
