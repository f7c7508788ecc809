"""The in-memory graph store keeps every GraphStore promise."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from redstring.graph.memory import InMemoryGraphStore
from redstring.testing import GraphStoreCompliance

if TYPE_CHECKING:
    from redstring.ports.graph_store import GraphStore


class TestInMemoryGraphStore(GraphStoreCompliance):
    @pytest.fixture
    def store(self) -> GraphStore:
        return InMemoryGraphStore()
