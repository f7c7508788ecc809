"""The in-memory chunk store keeps every ChunkStore promise."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from redstring.chunks.memory import InMemoryChunkStore
from redstring.testing import ChunkStoreCompliance

if TYPE_CHECKING:
    from redstring.ports.chunk_store import ChunkStore


class TestInMemoryChunkStore(ChunkStoreCompliance):
    @pytest.fixture
    def store(self) -> ChunkStore:
        return InMemoryChunkStore()
