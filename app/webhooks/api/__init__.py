"""The /webhooks HTTP API: endpoints that receivers register, and their delivery logs."""
