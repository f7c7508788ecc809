"""The text of a document's chunks, in the log so the chunk store is a projection.

`build_graph` appends one `ChunksStored` per ingested document version, just before
its `DocumentExtracted`, on the document's stream. It carries every chunk's text and
its character offsets into the document, so `replay` rebuilds the chunk store with
no file read and no model call, and it says which entities each chunk holds (from
their provenance): the link a chunk hit follows to become an entity hit.

The event replaces the document's chunks whole: a changed document may be cut into
fewer chunks, and a chunk left over from the older text would keep answering
queries about words the document no longer contains.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from redstring.domain.chunk import ChunkRecord, chunk_id_for
from redstring.domain.ids import EntityId
from redstring.events.base import DomainEvent, register


class StoredChunk(BaseModel):
    """One chunk: `document[start:end] == text`; `index` counts from 0 in the document."""

    model_config = ConfigDict(extra="forbid")

    index: int = Field(ge=0)
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str
    #: Entities whose provenance points into this chunk, each once.
    entity_ids: list[EntityId] = Field(default_factory=list)


@register
class ChunksStored(DomainEvent):
    """Every chunk of one version of one document (replacing the earlier version's)."""

    event_type: ClassVar[str] = "ChunksStored"
    schema_version: ClassVar[int] = 1

    source_id: str = Field(min_length=1)
    content_hash: str = Field(min_length=1)
    chunks: list[StoredChunk]

    @model_validator(mode="after")
    def _consistent(self) -> ChunksStored:
        # Building the records validates each span against its text.
        self.records()
        indexes = [chunk.index for chunk in self.chunks]
        if len(set(indexes)) != len(indexes):
            raise ValueError(f"document {self.source_id!r} lists a chunk index twice")
        return self

    def records(self) -> list[ChunkRecord]:
        """The chunks as a `ChunkStore` holds them, ids derived from source and index."""
        return [
            ChunkRecord(
                chunk_id=chunk_id_for(self.source_id, chunk.index),
                source_id=self.source_id,
                index=chunk.index,
                start=chunk.start,
                end=chunk.end,
                text=chunk.text,
                entity_ids=list(chunk.entity_ids),
            )
            for chunk in self.chunks
        ]
