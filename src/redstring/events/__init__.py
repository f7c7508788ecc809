"""Typed, versioned events: what the log stores and the projections fold."""

from redstring.events.base import DomainEvent, decode, register, registered_types
from redstring.events.chunks import ChunksStored, StoredChunk
from redstring.events.embedding import EmbeddedEntity, EntitiesEmbedded
from redstring.events.ingest import (
    ChunkExtracted,
    ChunkStats,
    DocumentExtracted,
    DocumentRetracted,
    ExtractionFailed,
    RecordsImported,
)
from redstring.events.merge import EntitiesMerged, MergeUndone, redirect_relationships
from redstring.events.resolution import ResolutionModelTrained
from redstring.events.streams import (
    document_stream,
    embeddings_stream,
    merge_stream,
    model_stream,
    records_stream,
)

__all__ = [
    "ChunkExtracted",
    "ChunkStats",
    "ChunksStored",
    "DocumentExtracted",
    "DocumentRetracted",
    "DomainEvent",
    "EmbeddedEntity",
    "EntitiesEmbedded",
    "EntitiesMerged",
    "ExtractionFailed",
    "MergeUndone",
    "RecordsImported",
    "ResolutionModelTrained",
    "StoredChunk",
    "decode",
    "document_stream",
    "embeddings_stream",
    "merge_stream",
    "model_stream",
    "records_stream",
    "redirect_relationships",
    "register",
    "registered_types",
]
