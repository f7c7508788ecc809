"""Events that bring entities into the graph: extraction from text, import from records."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from redstring.domain.entity import Entity
from redstring.domain.relationship import Relationship
from redstring.events.base import DomainEvent, check_tenant, register


class ChunkStats(BaseModel):
    """How the document was cut up, so a replay can report the same ingestion totals."""

    model_config = ConfigDict(extra="forbid")

    chunk_count: int = Field(ge=0)
    char_count: int = Field(ge=0)


@register
class DocumentExtracted(DomainEvent):
    """What one extractor run found in one document.

    `content_hash` lets ingestion skip a document whose text has not changed;
    `model`/`model_version` say which extractor produced the facts, so a replay
    never has to call it again.
    """

    event_type: ClassVar[str] = "DocumentExtracted"
    schema_version: ClassVar[int] = 1

    source_id: str = Field(min_length=1)
    content_hash: str = Field(min_length=1)
    model: str = Field(min_length=1)
    model_version: str | None = None
    entities: list[Entity] = Field(default_factory=list)
    relationships: list[Relationship] = Field(default_factory=list)
    chunks: ChunkStats

    @model_validator(mode="after")
    def _one_tenant(self) -> DocumentExtracted:
        check_tenant(self.tenant_id, self.entities, self.relationships)
        return self


@register
class RecordsImported(DomainEvent):
    """Entities (and optionally edges) read directly from structured records."""

    event_type: ClassVar[str] = "RecordsImported"
    schema_version: ClassVar[int] = 1

    source_id: str = Field(min_length=1)
    entities: list[Entity] = Field(default_factory=list)
    relationships: list[Relationship] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_tenant(self) -> RecordsImported:
        check_tenant(self.tenant_id, self.entities, self.relationships)
        return self
