"""A seeded fault schedule over the deployed shape (two hosts on PostgreSQL behind PgBouncer),
and a checker of what the clients, the feed's followers and the receivers saw:
docs/durability.md, "The fault schedule"."""
