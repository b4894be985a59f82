"""The webhooks feature's tables, each with every statement on it."""
