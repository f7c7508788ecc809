"""The SQLite FTS5 chunk store keeps every ChunkStore promise, and agrees with the
in-memory reference on every score."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import pytest

from redstring.chunks.memory import InMemoryChunkStore
from redstring.chunks.sqlite import SqliteChunkStore
from redstring.storage.sqlite import open_connection
from redstring.testing import ChunkStoreCompliance
from redstring.testing.chunk_store import chunk
from redstring.testing.factories import other_tenant

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from redstring.ports.chunk_store import ChunkStore
    from redstring.storage.sqlite import Connection


@pytest.fixture
def connection(tmp_path: Path) -> Iterator[Connection]:
    conn = open_connection(tmp_path / "redstring.db")
    yield conn
    conn.close()


class TestSqliteChunkStore(ChunkStoreCompliance):
    @pytest.fixture
    def store(self, connection: Connection) -> ChunkStore:
        return SqliteChunkStore(connection)


WORDS = [
    "river",
    "bank",
    "money",
    "loan",
    "water",
    "fish",
    "boat",
    "city",
    "mayor",
    "court",
    "judge",
    "trial",
]


async def test_scores_equal_the_reference_on_a_random_corpus(connection: Connection) -> None:
    """Catches: an FTS5 setup whose tokenizer or statistics differ from the reference
    (a shared table, another tokenizer, prefix indexes counted as terms)."""
    rng = random.Random(7)
    tenant = other_tenant()
    corpus = [
        chunk(" ".join(rng.choices(WORDS, k=rng.randint(3, 30))), f"c{i:03d}") for i in range(200)
    ]
    sqlite_store, reference = SqliteChunkStore(connection), InMemoryChunkStore()
    for store in (sqlite_store, reference):
        await store.upsert(corpus, tenant)
        await store.upsert(corpus[:50], tenant)  # a re-upsert changes nothing
        await store.upsert([chunk("money money court", "c000")], tenant)
    for _ in range(30):
        query = " ".join(rng.choices(WORDS, k=rng.randint(1, 4)))
        got = await sqlite_store.search(query, tenant, k=15)
        want = await reference.search(query, tenant, k=15)
        assert [m.chunk.chunk_id for m in got] == [m.chunk.chunk_id for m in want]
        assert [m.score for m in got] == pytest.approx([m.score for m in want], rel=1e-9)


async def test_the_index_survives_a_reopen(tmp_path: Path) -> None:
    tenant = other_tenant()
    first = open_connection(tmp_path / "w.db")
    await SqliteChunkStore(first).upsert([chunk("alpha beta", "ab")], tenant)
    first.close()
    second = open_connection(tmp_path / "w.db")
    try:
        [match] = await SqliteChunkStore(second).search("beta", tenant)
        assert match.chunk.chunk_id == "ab"
    finally:
        second.close()
