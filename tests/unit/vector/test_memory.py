"""The in-memory vector store keeps every VectorStore promise."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from redstring.testing import VectorStoreCompliance
from redstring.testing.vector_store import DIMENSION
from redstring.vector.memory import InMemoryVectorStore

if TYPE_CHECKING:
    from redstring.ports.vector_store import VectorStore


class TestInMemoryVectorStore(VectorStoreCompliance):
    @pytest.fixture
    def store(self) -> VectorStore:
        return InMemoryVectorStore(dimension=DIMENSION)
