"""Chunk store adapters: in memory (the reference) and SQLite FTS5 (the embedded default)."""
