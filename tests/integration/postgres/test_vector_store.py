"""The pgvector store keeps every VectorStore promise, by its exact path and through HNSW."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from redstring.domain.exceptions import DimensionMismatchError
from redstring.testing.vector_store import DIMENSION, VectorStoreCompliance
from redstring.vector.postgres import PostgresVectorStore

if TYPE_CHECKING:
    from redstring.ports.vector_store import VectorStore
    from redstring.storage.postgres import PgDatabase


class TestPostgresVectorStore(VectorStoreCompliance):
    """Small tenants: the planner answers by an exact scan of the tenant's rows."""

    @pytest.fixture
    async def store(self, pg_db: PgDatabase) -> VectorStore:
        return await PostgresVectorStore.create(pg_db, DIMENSION)


class TestPostgresVectorStoreThroughItsIndex(VectorStoreCompliance):
    """Sequential scans off: every search goes through the HNSW index's iterative scan,
    so the filter-before-k and tie clauses are proven on the approximate path too."""

    @pytest.fixture
    async def store(self, pg_db: PgDatabase) -> VectorStore:
        return await PostgresVectorStore.create(pg_db, DIMENSION, force_index=True)


async def test_opening_with_another_dimension_is_refused(pg_db: PgDatabase) -> None:
    """Catches a store that would accept the width and fail on the first insert."""
    await PostgresVectorStore.create(pg_db, DIMENSION)
    with pytest.raises(DimensionMismatchError):
        await PostgresVectorStore.create(pg_db, DIMENSION * 2)
