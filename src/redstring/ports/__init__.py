"""Protocols only. Adapters live in the store packages; suites in `redstring.testing`."""

from redstring.ports.chunk_store import ChunkStore
from redstring.ports.embedding import EmbeddingProvider
from redstring.ports.event_log import EventLog
from redstring.ports.graph_store import GraphStore
from redstring.ports.llm import LlmProvider
from redstring.ports.vector_store import VectorStore

__all__ = [
    "ChunkStore",
    "EmbeddingProvider",
    "EventLog",
    "GraphStore",
    "LlmProvider",
    "VectorStore",
]
