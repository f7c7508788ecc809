"""Dropping a database a test created, for every PostgreSQL test that makes one.

Without FORCE, not with it: `DROP DATABASE ... WITH (FORCE)` must end every other
session in the database, and a non-superuser may not end an autovacuum worker's
(InsufficientPrivilege, seen once in a harness run's teardown). A plain drop has the
server itself stop autovacuum workers there and wait up to 5 s for other sessions;
one the test left open still fails the drop, as a leak should.
"""

from __future__ import annotations

import psycopg
from psycopg import sql


def drop_database(url: str, name: str) -> None:
    """Drop `name` through the server `url` names."""
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))
