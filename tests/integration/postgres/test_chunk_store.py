"""The PostgreSQL chunk store keeps every ChunkStore promise, BM25 scores included."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from redstring.chunks.postgres import PostgresChunkStore
from redstring.testing import ChunkStoreCompliance

if TYPE_CHECKING:
    from redstring.ports.chunk_store import ChunkStore
    from redstring.storage.postgres import PgDatabase


class TestPostgresChunkStore(ChunkStoreCompliance):
    @pytest.fixture
    async def store(self, pg_db: PgDatabase) -> ChunkStore:
        return await PostgresChunkStore.create(pg_db)


async def test_scores_equal_the_in_memory_reference_to_the_bit(pg_db: PgDatabase) -> None:
    """Catches BM25 evaluated in another operation order (a sum over terms in any order,
    an idf in numeric): the suite compares scores approximately, but two chunks that tie
    in the reference must tie here too, or the chunk-id tie-break is decided by rounding."""
    import random

    from redstring.chunks.memory import InMemoryChunkStore
    from redstring.testing.chunk_store import chunk
    from redstring.testing.factories import DEFAULT_TENANT

    rng = random.Random(13)
    words = ["alpha", "beta", "gamma", "delta", "épsilon", "zeta", "eta", "theta"]
    corpus = [
        chunk(" ".join(rng.choice(words) for _ in range(rng.randint(1, 30))), chunk_id=f"c{n}")
        for n in range(60)
    ]
    store, reference = await PostgresChunkStore.create(pg_db), InMemoryChunkStore()
    for target in (store, reference):
        await target.upsert(corpus, DEFAULT_TENANT)
    for query in ("alpha", "beta gamma", "zeta eta theta alpha", "epsilon delta", "nothing"):
        got = await store.search(query, DEFAULT_TENANT, k=60)
        expected = await reference.search(query, DEFAULT_TENANT, k=60)
        assert [(m.chunk.chunk_id, m.score) for m in got] == [
            (m.chunk.chunk_id, m.score) for m in expected
        ]
