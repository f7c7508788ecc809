"""Event-log adapters: in-memory and SQLite (the embedded workspace's source of truth)."""
