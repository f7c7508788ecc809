"""The PostgreSQL graph store keeps every GraphStore promise, under the same suite as SQLite's."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from redstring.graph.postgres import PostgresGraphStore
from redstring.testing import GraphStoreCompliance

if TYPE_CHECKING:
    from redstring.ports.graph_store import GraphStore
    from redstring.storage.postgres import PgDatabase


class TestPostgresGraphStore(GraphStoreCompliance):
    @pytest.fixture
    async def store(self, pg_db: PgDatabase) -> GraphStore:
        return await PostgresGraphStore.create(pg_db)
