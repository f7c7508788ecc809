"""The sqlite-vec vector store keeps every VectorStore promise, across a reopen too."""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

import numpy as np
import pytest

from redstring.domain.exceptions import DimensionMismatchError, InvalidInputError
from redstring.eventlog.memory import InMemoryEventLog
from redstring.events.embedding import EmbeddedEntity, EntitiesEmbedded
from redstring.projections import InMemoryCheckpointStore
from redstring.projections.vector import VectorProjection
from redstring.storage.sqlite import open_connection
from redstring.testing import VectorStoreCompliance
from redstring.testing.factories import other_tenant
from redstring.testing.vector_store import DIMENSION, blend, record, unit
from redstring.vector import sqlite as vector_sqlite
from redstring.vector.sqlite import SqliteVectorStore

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from redstring.ports.vector_store import VectorStore
    from redstring.storage.sqlite import Connection


@pytest.fixture
def connection(tmp_path: Path) -> Iterator[Connection]:
    conn = open_connection(tmp_path / "redstring.db")
    yield conn
    conn.close()


class TestSqliteVectorStore(VectorStoreCompliance):
    @pytest.fixture
    def store(self, connection: Connection) -> VectorStore:
        return SqliteVectorStore(connection, DIMENSION)


class TestSqliteVectorStoreHeldInMemory(VectorStoreCompliance):
    """The same promises when every search scans the tenant's vectors in memory."""

    @pytest.fixture
    def store(self, connection: Connection) -> VectorStore:
        return SqliteVectorStore(connection, DIMENSION, memory_after=0)


class TestSqliteVectorStoreThroughItsIndex(VectorStoreCompliance):
    """The same promises when every tenant is searched through its HNSW index: what
    the index cannot settle (ties at k, filters leaving fewer than k) falls back."""

    @pytest.fixture
    def store(self, connection: Connection) -> VectorStore:
        return SqliteVectorStore(connection, DIMENSION, memory_after=None, ann_min_rows=1)


class TestSqliteVectorStoreIndexInMemoryOnly(VectorStoreCompliance):
    """And for a database without a file, whose indexes are never saved."""

    @pytest.fixture
    def store(self) -> VectorStore:
        return SqliteVectorStore(
            open_connection(":memory:"), DIMENSION, memory_after=None, ann_min_rows=1
        )


def _spread(count: int, seed: int = 3, within: int = DIMENSION) -> list[list[float]]:
    """`count` seeded unit vectors in the first `within` dimensions."""
    rng = np.random.default_rng(seed)
    rows = np.zeros((count, DIMENSION))
    rows[:, :within] = rng.standard_normal((count, within))
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).tolist()


def _no_exact_path(store: SqliteVectorStore, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object) -> None:
        raise AssertionError("an exact path answered")

    monkeypatch.setattr(store, "_knn_until_settled", refuse)
    monkeypatch.setattr(store, "_matrix", refuse)


async def test_the_index_answers_close_to_the_exact_scan_with_exact_scores(
    connection: Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index path answers alone (no exact path), each score is the exact score of
    its entity, best first, filters hold, and recall@10 against the exact scan stays
    high. Not equality: the graph is approximate (and built on several threads, so
    not even the same graph every run)."""
    tenant = other_tenant()
    vectors = _spread(300, within=8)
    records = [record(v, "person" if i % 3 else "place") for i, v in enumerate(vectors)]
    exact = SqliteVectorStore(connection, DIMENSION, memory_after=None, ann_min_rows=None)
    await exact.upsert(records, tenant)
    indexed = SqliteVectorStore(connection, DIMENSION, memory_after=None, ann_min_rows=100)
    _no_exact_path(indexed, monkeypatch)
    type_of = {r.entity_id: r.entity_type for r in records}
    found = 0
    for query in vectors[:20]:
        every = {m.entity_id: m.score for m in await exact.search(query, tenant, k=300)}
        want = await exact.search(query, tenant, k=10)
        got = await indexed.search(query, tenant, k=10)
        assert len(got) == 10
        assert [m.score for m in got] == pytest.approx([every[m.entity_id] for m in got], abs=1e-6)
        assert [m.score for m in got] == sorted((m.score for m in got), reverse=True)
        assert all(m.entity_type == type_of[m.entity_id] for m in got)
        found += len({m.entity_id for m in got} & {m.entity_id for m in want})
        typed = await indexed.search(query, tenant, k=5, entity_types=["person"])
        assert len(typed) == 5
        assert all(m.entity_type == "person" for m in typed)
    assert found / 200 >= 0.9


async def test_prepare_builds_the_index_before_the_first_search(
    connection: Connection, tmp_path: Path
) -> None:
    """Catches: a prepare that leaves the index to the first query; below the
    threshold it must build nothing."""
    store = SqliteVectorStore(connection, DIMENSION, ann_min_rows=20)
    tenant = other_tenant()
    await store.upsert([record(v) for v in _spread(19)], tenant)
    await store.prepare(tenant)
    assert not list(tmp_path.glob("redstring.db.vec/*"))
    await store.upsert([record(v) for v in _spread(1, seed=9)], tenant)
    await store.prepare(tenant)
    assert [p.name for p in tmp_path.glob("redstring.db.vec/*")] == [f"{tenant}.2.usearch"]


async def test_the_vector_projection_prepares_the_tenants_it_wrote(tmp_path: Path) -> None:
    """Catches: the index build left to the first search after build_graph or replay."""
    conn = open_connection(tmp_path / "projected.db")
    try:
        store = SqliteVectorStore(conn, DIMENSION, ann_min_rows=1)
        log = InMemoryEventLog()
        projection = VectorProjection(store, log, InMemoryCheckpointStore())
        tenant = other_tenant()
        embedded = EntitiesEmbedded(
            tenant_id=tenant,
            model="fake",
            dimension=DIMENSION,
            vectors=[
                EmbeddedEntity(entity_id=r.entity_id, entity_type="person", vector=r.vector)
                for r in (record(v) for v in _spread(3))
            ],
        )
        await log.append("doc", [embedded.to_new_event()], tenant_id=tenant, expected_version=0)
        await projection.catch_up()
        assert [p.name for p in tmp_path.glob("projected.db.vec/*")] == [f"{tenant}.1.usearch"]
    finally:
        conn.close()


async def test_a_tenant_below_the_threshold_is_never_indexed(
    connection: Connection, tmp_path: Path
) -> None:
    store = SqliteVectorStore(connection, DIMENSION, ann_min_rows=50)
    tenant = other_tenant()
    await store.upsert([record(v) for v in _spread(49)], tenant)
    await store.search(unit(0), tenant)
    assert not list(tmp_path.glob("redstring.db.vec/*"))
    await store.upsert([record(v) for v in _spread(1, seed=9)], tenant)
    await store.search(unit(0), tenant)
    assert [p.name for p in tmp_path.glob("redstring.db.vec/*")] == [f"{tenant}.2.usearch"]


async def test_a_saved_index_is_caught_up_with_writes_of_another_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each connection stands for a process: the reader's index (held, or saved and
    reopened by a third) follows the writer's upserts and deletes, without a rebuild."""
    path = tmp_path / "redstring.db"
    tenant = other_tenant()
    reader_conn, writer_conn = open_connection(path), open_connection(path)
    try:
        reader = SqliteVectorStore(reader_conn, DIMENSION, memory_after=None, ann_min_rows=1)
        writer = SqliteVectorStore(writer_conn, DIMENSION, ann_min_rows=None)
        first = record(unit(0))
        await writer.upsert([first, *(record(v) for v in _spread(60))], tenant)
        assert (await reader.search(unit(0), tenant, k=1))[0].entity_id == first.entity_id

        def no_rebuild(*_: object) -> None:
            raise AssertionError("rebuilt")

        monkeypatch.setattr(reader, "_build_ann", no_rebuild)
        second = record(unit(1))
        await writer.upsert([second], tenant)
        assert (await reader.search(unit(1), tenant, k=1))[0].entity_id == second.entity_id
        await writer.upsert([record(unit(2), entity_id=second.entity_id)], tenant)
        moved = await reader.search(unit(2), tenant, k=1)
        assert moved[0].entity_id == second.entity_id
        assert moved[0].score == pytest.approx(1.0, abs=1e-6)
        await writer.delete([first.entity_id], tenant)
        assert first.entity_id not in {m.entity_id for m in await reader.search(unit(0), tenant)}

        third_conn = open_connection(path)
        try:
            third = SqliteVectorStore(third_conn, DIMENSION, memory_after=None, ann_min_rows=1)
            monkeypatch.setattr(third, "_build_ann", no_rebuild)
            _no_exact_path(third, monkeypatch)
            assert (await third.search(unit(2), tenant, k=1))[0].entity_id == second.entity_id
        finally:
            third_conn.close()
        saved = list((tmp_path / "redstring.db.vec").glob("*.usearch"))
        assert [p.name for p in saved] == [f"{tenant}.4.usearch"]
        assert reader_conn.execute("SELECT count(*) FROM vec_ann_changes").fetchone()[0] == 0
    finally:
        reader_conn.close()
        writer_conn.close()


async def test_an_index_opened_as_a_map_is_caught_up_or_rebuilt_after_a_write(
    tmp_path: Path,
) -> None:
    """A process that opened a current file read-only, then sees a write, reloads the
    file writable to catch up -- or rebuilds when the file went away meanwhile."""
    path = tmp_path / "redstring.db"
    tenant = other_tenant()
    conn = open_connection(path)
    try:
        builder = SqliteVectorStore(conn, DIMENSION, memory_after=None, ann_min_rows=1)
        await builder.upsert([record(v) for v in _spread(40)], tenant)
        await builder.search(unit(0), tenant)
        for direction, lose_the_file in ((7, False), (8, True)):
            mapped = SqliteVectorStore(conn, DIMENSION, memory_after=None, ann_min_rows=1)
            await mapped.search(unit(0), tenant)
            added = record(unit(direction))
            await builder.upsert([added], tenant)
            if lose_the_file:
                for saved in (tmp_path / "redstring.db.vec").glob("*.usearch"):
                    saved.unlink()
            [found] = await mapped.search(unit(direction), tenant, k=1)
            assert found.entity_id == added.entity_id
    finally:
        conn.close()


async def test_a_second_store_on_one_memory_database_builds_its_own_index() -> None:
    conn = open_connection(":memory:")
    tenant = other_tenant()
    first = SqliteVectorStore(conn, DIMENSION, memory_after=None, ann_min_rows=1)
    target = record(unit(2))
    await first.upsert([target, *(record(v) for v in _spread(30))], tenant)
    await first.search(unit(2), tenant)
    second = SqliteVectorStore(conn, DIMENSION, memory_after=None, ann_min_rows=1)
    assert (await second.search(unit(2), tenant, k=1))[0].entity_id == target.entity_id


async def test_an_unreadable_index_file_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "redstring.db"
    tenant = other_tenant()
    conn = open_connection(path)
    try:
        store = SqliteVectorStore(conn, DIMENSION, memory_after=None, ann_min_rows=1)
        target = record(unit(4))
        await store.upsert([target, *(record(v) for v in _spread(30))], tenant)
        await store.search(unit(4), tenant)
        [saved] = (tmp_path / "redstring.db.vec").glob("*.usearch")
        saved.write_bytes(b"not an index")
        fresh = SqliteVectorStore(conn, DIMENSION, memory_after=None, ann_min_rows=1)
        assert (await fresh.search(unit(4), tenant, k=1))[0].entity_id == target.entity_id
    finally:
        conn.close()


async def test_a_rare_type_falls_back_to_the_exact_scan(connection: Connection) -> None:
    """One place among many persons: the index's candidates hold no place, so fewer
    than k pass the filter and the exact path answers -- filters still before k."""
    store = SqliteVectorStore(connection, DIMENSION, memory_after=None, ann_min_rows=1)
    tenant = other_tenant()
    place = record(blend(-0.9), "place")
    await store.upsert([*(record(blend(0.9 - i / 1000)) for i in range(200)), place], tenant)
    matches = await store.search(unit(0), tenant, k=3, entity_types=["place"])
    assert [m.entity_id for m in matches] == [place.entity_id]


async def test_delete_by_tenant_drops_the_index(connection: Connection, tmp_path: Path) -> None:
    store = SqliteVectorStore(connection, DIMENSION, memory_after=None, ann_min_rows=1)
    tenant = other_tenant()
    await store.upsert([record(v) for v in _spread(20)], tenant)
    await store.search(unit(0), tenant)
    await store.delete_by_tenant(tenant)
    assert not list(tmp_path.glob("redstring.db.vec/*.usearch"))
    assert await store.search(unit(0), tenant) == []
    again = record(unit(0))
    await store.upsert([again], tenant)
    assert [m.entity_id for m in await store.search(unit(0), tenant)] == [again.entity_id]


async def test_a_file_without_the_type_column_gets_it_filled(tmp_path: Path) -> None:
    """Workspaces written before the index kept the type only in vec0."""
    path = tmp_path / "redstring.db"
    tenant = other_tenant()
    conn = open_connection(path)
    try:
        store = SqliteVectorStore(conn, DIMENSION)
        stored = record(unit(0), "place")
        await store.upsert([stored], tenant)
        conn.execute("ALTER TABLE vec_entities DROP COLUMN entity_type")
        conn.commit()
        SqliteVectorStore(conn, DIMENSION)
        assert conn.execute("SELECT entity_type FROM vec_entities").fetchall() == [("place",)]
    finally:
        conn.close()


async def test_a_write_by_another_connection_is_seen_by_a_matrix_held_in_memory(
    tmp_path: Path,
) -> None:
    """The in-memory copy is one process's cache of a shared file: a write made
    through another connection (another process) must invalidate it."""
    path = tmp_path / "redstring.db"
    tenant = other_tenant()
    reader_conn, writer_conn = open_connection(path), open_connection(path)
    try:
        reader = SqliteVectorStore(reader_conn, DIMENSION, memory_after=0)
        writer = SqliteVectorStore(writer_conn, DIMENSION)
        first = record(unit(0))
        await writer.upsert([first], tenant)
        assert [m.entity_id for m in await reader.search(unit(0), tenant, k=1)] == [first.entity_id]
        second = record(unit(1))
        await writer.upsert([second], tenant)
        assert [m.entity_id for m in await reader.search(unit(1), tenant, k=1)] == [
            second.entity_id
        ]
        await writer.delete([first.entity_id], tenant)
        assert [m.entity_id for m in await reader.search(unit(0), tenant, k=5)] == [
            second.entity_id
        ]
    finally:
        reader_conn.close()
        writer_conn.close()


async def test_the_memory_path_is_taken_only_after_memory_after_searches(
    connection: Connection,
) -> None:
    """A one-shot search (the CLI) must not pay for loading the tenant."""
    store = SqliteVectorStore(connection, DIMENSION, memory_after=2)
    tenant = other_tenant()
    await store.upsert([record(unit(0))], tenant)
    for _ in range(2):
        await store.search(unit(0), tenant)
        assert store._matrices == {}
    await store.search(unit(0), tenant)
    assert list(store._matrices) == [str(tenant)]
    await store.upsert([record(unit(1))], tenant)
    await store.search(unit(0), tenant)
    assert store._matrices == {}


async def test_vectors_read_back_after_reopening_the_file(tmp_path: Path) -> None:
    """Catches a store whose rowid mapping or dimension lives only in the Python object:
    after a reopen an upsert would then duplicate instead of replace."""
    path = tmp_path / "redstring.db"
    tenant = other_tenant()
    kept = record(unit(0))
    first = open_connection(path)
    await SqliteVectorStore(first, DIMENSION).upsert([kept, record(unit(1), "place")], tenant)
    first.close()

    second = open_connection(path)
    try:
        store = SqliteVectorStore(second, DIMENSION)
        assert await store.count(tenant) == 2
        await store.upsert([record(unit(2), entity_id=kept.entity_id)], tenant)
        assert await store.count(tenant) == 2
        [match] = await store.search(unit(2), tenant, k=1)
        assert (match.entity_id, match.score) == (kept.entity_id, pytest.approx(1.0, abs=1e-5))
    finally:
        second.close()


async def test_reopening_with_another_dimension_is_refused(tmp_path: Path) -> None:
    """Catches a store that trusts the constructor's dimension over the file's: every
    later insert would fail inside vec0, or a new empty table would hide the old one."""
    path = tmp_path / "redstring.db"
    first = open_connection(path)
    SqliteVectorStore(first, DIMENSION)
    first.close()
    second = open_connection(path)
    try:
        with pytest.raises(DimensionMismatchError) as refused:
            SqliteVectorStore(second, DIMENSION * 2)
        assert (refused.value.expected, refused.value.actual) == (DIMENSION, DIMENSION * 2)
        assert SqliteVectorStore(second, DIMENSION).dimension == DIMENSION
    finally:
        second.close()


async def test_tables_share_the_file_under_the_vec_prefix(connection: Connection) -> None:
    """Catches an unprefixed table that would clash with the graph's or event log's."""
    SqliteVectorStore(connection, DIMENSION)
    names = [
        name
        for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    ]
    assert "vec_vectors" in names
    assert all(name.startswith("vec_") for name in names)


async def test_min_score_and_type_filter_beyond_the_vec0_k_cap(
    connection: Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Catches stopping at vec0's k cap: a type filter plus a k larger than the cap must
    still return every passing row, via the exact scan fallback (cap lowered to 4 here)."""
    monkeypatch.setattr(vector_sqlite, "_VEC0_MAX_K", 4)
    store = SqliteVectorStore(connection, DIMENSION)
    tenant = other_tenant()
    persons = [record(blend(0.9 - i / 100)) for i in range(6)]
    await store.upsert([*persons, record(unit(0), "organization"), record(blend(-0.9))], tenant)
    matches = await store.search(unit(0), tenant, k=6, entity_types=["person"], min_score=0.6)
    assert [m.entity_id for m in matches] == [p.entity_id for p in persons]
    assert await store.search(unit(0), tenant, k=3, entity_types=["organization"]) != []


async def test_a_zero_vector_scores_as_orthogonal(connection: Connection) -> None:
    """Catches vec0's NULL cosine for a zero vector, and a zero query scoring 1.0
    against a stored zero vector: cosine with a zero vector is 0 (score 0.5)."""
    store = SqliteVectorStore(connection, DIMENSION)
    tenant = other_tenant()
    zero = record([0.0] * DIMENSION)
    await store.upsert([zero, record(unit(0))], tenant)
    [match, _] = await store.search(unit(1), tenant)
    assert match.score == pytest.approx(0.5, abs=1e-5)
    assert [m.score for m in await store.search([0.0] * DIMENSION, tenant)] == [0.5, 0.5]


async def test_a_non_finite_component_is_refused_and_nothing_stored(
    connection: Connection,
) -> None:
    """Catches a NaN stored in vec0, whose distance is NULL and breaks every later search."""
    store = SqliteVectorStore(connection, DIMENSION)
    tenant = other_tenant()
    bad = unit(0)
    bad[3] = float("nan")
    with pytest.raises(InvalidInputError):
        await store.upsert([record(unit(1)), record(bad)], tenant)
    assert await store.count(tenant) == 0


async def test_the_last_record_of_an_entity_in_one_batch_wins(connection: Connection) -> None:
    """Catches the batched upsert keeping the first of two records for one entity (or
    inserting both): one-by-one upserts would leave the last."""
    store = SqliteVectorStore(connection, DIMENSION)
    tenant = other_tenant()
    first = record(unit(0))
    last = record(unit(1), "place", entity_id=first.entity_id)
    await store.upsert([first, last], tenant)
    assert await store.count(tenant) == 1
    [match] = await store.search(unit(1), tenant)
    assert (match.entity_type, match.score) == ("place", pytest.approx(1.0, abs=1e-5))


@pytest.mark.slow
def test_the_index_library_and_the_local_model_load_in_either_order() -> None:
    """usearch 2.26 crashed onnxruntime's import when loaded first (a segfault, so a
    subprocess): the pin in pyproject keeps a version that does not."""
    script = (
        "import asyncio, usearch.index\n"
        "from redstring.embeddings.local import LocalEmbeddingProvider\n"
        "[v] = asyncio.run(LocalEmbeddingProvider().embed_query(['Ada Lovelace']))\n"
        "print(len(v))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert (done.returncode, done.stdout.strip()) == (0, "384"), done.stderr
