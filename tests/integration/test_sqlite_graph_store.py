"""The SQLite graph store keeps every GraphStore promise, and keeps them across a reopen."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import pytest

from redstring.domain.exceptions import TenantMismatchError
from redstring.graph.sqlite import SqliteGraphStore
from redstring.storage.sqlite import open_connection, transaction
from redstring.testing import GraphStoreCompliance
from redstring.testing.factories import make_entity, make_relationship, other_tenant

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from redstring.domain.entity import Entity
    from redstring.ports.graph_store import GraphStore
    from redstring.storage.sqlite import Connection


@pytest.fixture
def connection(tmp_path: Path) -> Iterator[Connection]:
    conn = open_connection(tmp_path / "redstring.db")
    yield conn
    conn.close()


class TestSqliteGraphStore(GraphStoreCompliance):
    @pytest.fixture
    def store(self, connection: Connection) -> GraphStore:
        return SqliteGraphStore(connection)


async def test_everything_written_reads_back_after_reopening_the_file(tmp_path: Path) -> None:
    """Catches state held in the Python object instead of the file (a cache that is the
    only copy), and a schema step that wipes tables when it runs again on open."""
    path = tmp_path / "redstring.db"
    tenant = other_tenant()
    ada = make_entity(tenant_id=tenant, name="Ada Lovelace", properties={"born": 1815})
    charles = make_entity(tenant_id=tenant, name="Charles Babbage")
    edge = make_relationship(ada, charles)
    alias = make_entity(tenant_id=tenant, name="A. Lovelace").id
    first = open_connection(path)
    store = SqliteGraphStore(first)
    await store.upsert_entities([ada, charles], tenant)
    await store.upsert_relationships([edge], tenant)
    await store.set_alias(alias, ada.id, tenant)
    first.close()

    second = open_connection(path)
    try:
        reopened = SqliteGraphStore(second)
        assert await reopened.get_entity(alias, tenant) == ada
        assert await reopened.list_entities(tenant) == sorted(
            [ada, charles], key=lambda entity: str(entity.id)
        )
        assert await reopened.neighbours(charles.id, tenant) == [ada]
        assert (await reopened.find_by_blocking_keys(["p:ada "], tenant))["p:ada "] == [ada]
    finally:
        second.close()


async def test_tables_share_the_file_under_the_graph_prefix(connection: Connection) -> None:
    """Catches an unprefixed table that would clash with the event log's or chunk store's."""
    SqliteGraphStore(connection)
    names = [
        name
        for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    ]
    assert names
    assert all(name.startswith("graph_") for name in names)


async def test_a_refused_batch_inside_a_callers_transaction_leaves_it_usable(
    connection: Connection,
) -> None:
    """Catches a store that commits or rolls back the caller's outer transaction (a
    projection wraps a store call and its checkpoint in one transaction)."""
    store = SqliteGraphStore(connection)
    tenant = other_tenant()
    kept = make_entity(tenant_id=tenant, name="Kept")
    with transaction(connection):
        await store.upsert_entities([kept], tenant)
        with pytest.raises(TenantMismatchError):
            await store.upsert_entities(
                [make_entity(tenant_id=tenant), make_entity(tenant_id=other_tenant())], tenant
            )
        assert connection.in_transaction
    assert await store.list_entities(tenant) == [kept]


async def test_a_large_batch_crosses_the_bound_parameter_chunks(connection: Connection) -> None:
    """Catches ids dropped or double-counted at a chunk boundary: reads and deletes bind
    ids in `IN (...)` chunks to stay under SQLite's bound-variable limit."""
    store = SqliteGraphStore(connection)
    tenant = other_tenant()
    entities = [make_entity(tenant_id=tenant, name=f"Person {i}") for i in range(1203)]
    await store.upsert_entities(entities, tenant)
    found = await store.get_entities([entity.id for entity in entities], tenant)
    assert {entity.id for entity in found} == {entity.id for entity in entities}
    await store.delete_entities([entity.id for entity in entities[:1100]], tenant)
    assert await store.count_entities(tenant) == 103


async def _ada_written_then(path: Path, statement: str, *, settled: bool) -> Entity:
    """Ada written to a file at `path` (her keys filed when `settled`), then `statement`
    run on it: a file as an earlier version of the schema left it."""
    ada = make_entity(tenant_id=other_tenant(), name="Ada Lovelace")
    first = open_connection(path)
    try:
        store = SqliteGraphStore(first)
        await store.upsert_entities([ada], ada.tenant_id)
        if settled:
            await store.settle_keys(ada.tenant_id)
        with transaction(first) as conn:
            conn.execute(statement)
    finally:
        first.close()
    return ada


async def test_a_file_written_before_the_lexicon_gets_it_filled_on_open(tmp_path: Path) -> None:
    """Workspaces made before `graph_lexicon_blocks` existed must retrieve lexically without a
    replay: opening the store fills it from the stored entities, once."""
    path = tmp_path / "redstring.db"
    ada = await _ada_written_then(path, "DROP TABLE graph_lexicon_blocks", settled=True)
    second = open_connection(path)
    try:
        reopened = SqliteGraphStore(second)
        found = await reopened.lexical_candidates(["w:love"], ada.tenant_id, limit=10)
        assert [c.entity_id for c in found] == [ada.id]
    finally:
        second.close()


async def test_a_queue_of_the_lexicon_only_version_is_carried_over_on_open(
    tmp_path: Path,
) -> None:
    """A file whose writes were queued under the queue's first name
    (`graph_lexicon_pending`) must still file them: dropping that queue would leave its
    entities out of the lexicon and out of blocking-key lookups for good."""
    path = tmp_path / "redstring.db"
    ada = await _ada_written_then(
        path, "ALTER TABLE graph_keys_pending RENAME TO graph_lexicon_pending", settled=False
    )
    tenant = ada.tenant_id
    second = open_connection(path)
    try:
        reopened = SqliteGraphStore(second)
        found = await reopened.lexical_candidates(["w:love"], tenant, limit=10)
        assert [c.entity_id for c in found] == [ada.id]
        [key] = [k for k in ada.blocking_keys if k.startswith("p:")]
        assert [e.id for e in (await reopened.find_by_blocking_keys([key], tenant))[key]] == [
            ada.id
        ]
    finally:
        second.close()


async def test_a_read_does_not_wait_for_another_writers_lock_to_file_keys(
    tmp_path: Path,
) -> None:
    """Catches a search blocked (then failing with "database is locked") while another
    process holds the write lock, because the keys it would file need that lock: it
    reads what is filed, and the next read once the lock is free files the rest."""
    path = tmp_path / "redstring.db"
    tenant = other_tenant()
    ada = make_entity(tenant_id=tenant, name="Ada Lovelace")
    reader, writer = open_connection(path), open_connection(path)
    try:
        store = SqliteGraphStore(reader)
        await store.upsert_entities([ada], tenant)
        writer.execute("BEGIN IMMEDIATE")
        started = time.perf_counter()
        assert await store.lexical_candidates(["w:love"], tenant, limit=10) == []
        assert time.perf_counter() - started < 1.0
        writer.rollback()
        found = await store.lexical_candidates(["w:love"], tenant, limit=10)
        assert [c.entity_id for c in found] == [ada.id]
    finally:
        reader.close()
        writer.close()


async def test_keys_written_inside_a_callers_transaction_are_read_inside_it(
    connection: Connection,
) -> None:
    """Catches the keys filed on first read being skipped inside a caller's write
    transaction: what it has just written must be found before it commits."""
    tenant = other_tenant()
    ada = make_entity(tenant_id=tenant, name="Ada Lovelace")
    store = SqliteGraphStore(connection)
    with transaction(connection):
        await store.upsert_entities([ada], tenant)
        found = await store.lexical_candidates(["w:love"], tenant, limit=10)
        assert [c.entity_id for c in found] == [ada.id]
        [key] = [k for k in ada.blocking_keys if k.startswith("p:")]
        assert [e.id for e in (await store.find_by_blocking_keys([key], tenant))[key]] == [ada.id]


async def test_when_every_block_overflows_the_rarest_is_read_in_part(tmp_path: Path) -> None:
    """Block sizes are counted only up to the limit; when all overflow, the store must
    still find the rarest (here the alphabetically later key) to read in part."""
    tenant = other_tenant()
    conn = open_connection(tmp_path / "redstring.db")
    try:
        store = SqliteGraphStore(conn)
        common = [make_entity(tenant_id=tenant, name=f"Abcdef {n}") for n in "klmno"]
        rarer = [make_entity(tenant_id=tenant, name=f"Wxyzab {n}") for n in "klm"]
        await store.upsert_entities([*common, *rarer], tenant)
        found = await store.lexical_candidates(["w:abcd", "w:wxyz"], tenant, limit=2)
        assert {c.id_string for c in found} <= {str(e.id) for e in rarer}
        assert len(found) == 2
    finally:
        conn.close()


async def test_deleting_an_entity_unfiles_its_filed_keys_and_edges(
    connection: Connection,
) -> None:
    """Catches `delete_entities` passing over a table it judged empty for the tenant
    when it is not: the keys and lexicon rows a read filed, and the edges, of a deleted
    entity must go with it (only another tenant's rows must not count)."""
    tenant, other = other_tenant(), other_tenant()
    store = SqliteGraphStore(connection)
    ada = make_entity(tenant_id=tenant, name="Ada Lovelace")
    charles = make_entity(tenant_id=tenant, name="Charles Babbage")
    await store.upsert_entities([ada, charles], tenant)
    await store.upsert_relationships([make_relationship(ada, charles)], tenant)
    await store.upsert_entities([make_entity(tenant_id=other, name="Ada Lovelace")], other)
    assert await store.settle_keys(tenant) == 2
    await store.delete_entities([ada.id], tenant)
    for table in ("graph_blocking_keys", "graph_lexicon_blocks"):
        left = connection.execute(
            f"SELECT count(*) FROM {table} WHERE entity_id = ?", (str(ada.id),)
        ).fetchone()[0]
        assert left == 0, table
    assert await store.relationships(charles.id, tenant) == []
    assert [e.id for e in await store.list_entities(tenant)] == [charles.id]
