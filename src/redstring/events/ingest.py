"""Events that bring entities into the graph: extraction from text, import from records."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from redstring.domain.entity import Entity
from redstring.domain.ids import EntityId
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


@register
class DocumentRetracted(DomainEvent):
    """A changed document withdraws what its previous version said.

    Appended by `build_graph` just before the new version's events, on the same
    stream. `superseded_version` is the stream version of the `DocumentExtracted`
    being withdrawn: the projections read it back from the log (as an undo reads
    its merge), so the event stays small and the log holds each fact once.

    The graph projection removes that extraction's provenance from every entity and
    relationship it touched (through aliases: a merged entity keeps the provenance
    of its other members), deletes an entity of `removed_entity_ids` left with no
    provenance and not merged into another, and deletes every relationship left with
    none. `removed_entity_ids` are the superseded extraction's entities that the new
    text no longer yields; the vector projection deletes their vectors. Entities the
    new text still yields are restored by the `DocumentExtracted` that follows.
    """

    event_type: ClassVar[str] = "DocumentRetracted"
    schema_version: ClassVar[int] = 1

    source_id: str = Field(min_length=1)
    superseded_version: int = Field(ge=1)
    removed_entity_ids: list[EntityId] = Field(default_factory=list)
