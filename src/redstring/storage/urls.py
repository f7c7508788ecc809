"""What a `--db` value names, told without importing a database driver."""

from __future__ import annotations


def is_postgres_url(text: str) -> bool:
    """True when `text` names a PostgreSQL server rather than a SQLite file."""
    return text.startswith(("postgresql://", "postgres://"))
