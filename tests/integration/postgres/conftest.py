"""A PostgreSQL server for the adapters' tests: each test gets a fresh schema of its own.

The server is found through `REDSTRING_TEST_PG_URL` (`.ci/run` starts one with
`.ci/postgres.sh` and sets it). Outside CI a missing or unreachable server skips
these tests with the reason; under `CI=true` it fails them, so CI can never pass by
silently not running them.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING
from uuid import uuid4

import pytest

from redstring.domain.exceptions import WorkspaceError
from redstring.storage.postgres import PgDatabase
from tests.support.postgres import drop_database

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

URL_VARIABLE = "REDSTRING_TEST_PG_URL"


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but no PostgreSQL for the tests: {reason}")
    pytest.skip(f"no PostgreSQL server: {reason} (run `bash .ci/postgres.sh` and export it)")


@pytest.fixture
def pg_url() -> str:
    url = os.environ.get(URL_VARIABLE)
    if not url:
        _unavailable(f"{URL_VARIABLE} is not set")
    assert url is not None
    return url


async def open_schema(url: str, *, max_size: int = 4) -> PgDatabase:
    """A database handle on a new, empty schema (unique name: tests never share tables)."""
    try:
        return await PgDatabase.open(url, schema=f"t_{uuid4().hex}", max_size=max_size)
    except WorkspaceError as exc:
        _unavailable(str(exc))
        raise


async def drop_schema(db: PgDatabase) -> None:
    from psycopg import sql

    schema = db.schema
    await db.close()
    assert schema is not None
    import psycopg

    async with await psycopg.AsyncConnection.connect(
        os.environ[URL_VARIABLE], autocommit=True
    ) as conn:
        await conn.execute(
            sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema))
        )


@pytest.fixture
async def pg_db(pg_url: str) -> AsyncIterator[PgDatabase]:
    db = await open_schema(pg_url)
    yield db
    await drop_schema(db)


@pytest.fixture
async def pg_database(pg_url: str) -> AsyncIterator[str]:
    """The URL of a new, empty database (a workspace owns a whole database, as a
    SQLite workspace owns its file); dropped afterwards."""
    import psycopg
    from psycopg import sql

    name = f"t_{uuid4().hex}"
    try:
        admin = await psycopg.AsyncConnection.connect(pg_url, autocommit=True)
    except psycopg.OperationalError as exc:
        _unavailable(str(exc))
        raise
    async with admin:
        await admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    yield pg_url.rsplit("/", 1)[0] + "/" + name
    drop_database(pg_url, name)
