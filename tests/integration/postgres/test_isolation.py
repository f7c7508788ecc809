"""Tenant isolation twice over: the queries' own filters, and row-level security."""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import uuid4

import psycopg
import pytest

from redstring.chunks.postgres import PostgresChunkStore
from redstring.domain.chunk import ChunkRecord
from redstring.domain.ids import TenantId
from redstring.domain.vector import VectorRecord
from redstring.eventlog.postgres import PostgresEventLog
from redstring.graph.postgres import PostgresGraphStore
from redstring.storage.postgres import ALL_TENANTS
from redstring.testing.event_log import event
from redstring.testing.factories import make_entity, make_relationship
from redstring.vector.postgres import PostgresVectorStore

if TYPE_CHECKING:
    from redstring.storage.postgres import PgDatabase

#: Every table that holds a tenant's data.
TABLES = (
    "event_log",
    "graph_entities",
    "graph_blocking_keys",
    "graph_aliases",
    "graph_lexicon_blocks",
    "graph_relationships",
    "vec_entities",
    "chunk_rows",
    "chunk_terms",
)


async def _two_tenants(db: PgDatabase) -> tuple[TenantId, TenantId]:
    """Both tenants hold a row in every table."""
    graph, log = await PostgresGraphStore.create(db), await PostgresEventLog.create(db)
    vectors, chunks = await PostgresVectorStore.create(db, 3), await PostgresChunkStore.create(db)
    tenants = TenantId(uuid4()), TenantId(uuid4())
    for tenant in tenants:
        ada, bob = make_entity(tenant_id=tenant), make_entity(tenant_id=tenant, name="Bob Jones")
        await graph.upsert_entities([ada, bob], tenant)
        await graph.upsert_relationships([make_relationship(ada, bob)], tenant)
        await graph.set_alias(make_entity(tenant_id=tenant).id, ada.id, tenant)
        await log.append(f"s-{tenant}", [event(1)], tenant_id=tenant, expected_version=0)
        await vectors.upsert(
            [VectorRecord(entity_id=ada.id, vector=[1.0, 0.0, 0.0], entity_type="person")], tenant
        )
        await chunks.upsert(
            [ChunkRecord(chunk_id="c", source_id="d", index=0, start=0, end=5, text="hello")],
            tenant,
        )
    return tenants


async def _counts(conn: psycopg.AsyncConnection[tuple[object, ...]]) -> dict[str, int]:
    found = {}
    for table in TABLES:
        row = await (await conn.execute(f"SELECT count(*) FROM {table}")).fetchone()  # type: ignore[arg-type]
        assert row is not None
        found[table] = int(str(row[0]))
    return found


async def test_a_query_that_forgets_its_tenant_filter_sees_only_its_tenant(
    pg_db: PgDatabase,
) -> None:
    """Catches a table without the wall, or a wall its owner bypasses (no FORCE): the
    unfiltered count inside one tenant's transaction is that tenant's alone."""
    first, second = await _two_tenants(pg_db)
    async with pg_db.transaction(ALL_TENANTS) as conn:
        everything = await _counts(conn)
    async with pg_db.transaction(first) as conn:
        mine = await _counts(conn)
    assert all(count > 0 for count in mine.values()), mine
    assert {table: 2 * count for table, count in mine.items()} == everything
    # Reads declare the tenant for the session instead: the same wall.
    for tenant in (second, first):
        async with pg_db.read(tenant) as conn:
            assert await _counts(conn) == mine


async def test_a_session_that_declared_no_tenant_sees_nothing(
    pg_db: PgDatabase, pg_url: str
) -> None:
    """The second wall alone: a raw connection of the same role, no tenant declared."""
    await _two_tenants(pg_db)
    options = f"-c search_path={pg_db.schema},public"
    async with await psycopg.AsyncConnection.connect(
        pg_url, autocommit=True, options=options
    ) as conn:
        assert set((await _counts(conn)).values()) == {0}


async def test_a_write_under_another_tenant_is_refused_by_the_wall(pg_db: PgDatabase) -> None:
    first, second = await _two_tenants(pg_db)
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        async with pg_db.transaction(first) as conn:
            await conn.execute(
                "INSERT INTO graph_aliases (tenant_id, alias_id, canonical_id) VALUES (%s, %s, %s)",
                (second, uuid4(), uuid4()),
            )
