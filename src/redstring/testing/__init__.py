"""Compliance suites: one per port, subclassed by every adapter's tests.

An adapter that passes its suite keeps the port's promises -- tenant isolation
with colliding ids, copies not references, filter-before-k, tie-breaks. An
adapter that cannot meet a clause gets a weaker tier, never an opt-out flag.

Subclass a suite in a test module and override its `store` (or `log`) fixture::

    class TestMyGraphStore(GraphStoreCompliance):
        @pytest.fixture
        def store(self) -> GraphStore:
            return MyGraphStore(...)
"""

from redstring.testing.chunk_store import ChunkStoreCompliance
from redstring.testing.event_log import EventLogCompliance
from redstring.testing.factories import make_entity, make_relationship
from redstring.testing.graph_store import GraphStoreCompliance
from redstring.testing.vector_store import VectorStoreCompliance

__all__ = [
    "ChunkStoreCompliance",
    "EventLogCompliance",
    "GraphStoreCompliance",
    "VectorStoreCompliance",
    "make_entity",
    "make_relationship",
]
