"""What the operator runs and reads: the commands, the outbox per receiver, /metrics."""
