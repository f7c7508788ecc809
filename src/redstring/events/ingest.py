"""Events that bring entities into the graph: extraction from text, import from records."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from redstring.domain.entity import Entity
from redstring.domain.ids import EntityId
from redstring.domain.relationship import Relationship
from redstring.domain.usage import TokenUsage
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
    never has to call it again. `tokens` is what the run that completed the document
    paid the model (chunks kept from earlier, failed runs paid in their own
    `ChunkExtracted` and `ExtractionFailed` events; a cached answer costs nothing).
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
    tokens: TokenUsage = Field(default_factory=TokenUsage)

    @model_validator(mode="after")
    def _one_tenant(self) -> DocumentExtracted:
        check_tenant(self.tenant_id, self.entities, self.relationships)
        return self


@register
class ChunkExtracted(DomainEvent):
    """One chunk's model answer, kept because its document did not complete.

    Appended on the document's stream, for each chunk that succeeded, when another
    chunk of the same text failed. No `DocumentExtracted` follows, so the content
    hash does not mark the document done; a rerun of the same text under the same
    model and domain reuses these answers and asks the model only for the chunks
    that have none. No projection folds it: the graph learns the chunk's facts from
    the `DocumentExtracted` that completes the document.

    `output` is the answer as the extractor's output schema dumped it (JSON), so the
    rerun maps it exactly as a fresh answer.
    """

    event_type: ClassVar[str] = "ChunkExtracted"
    schema_version: ClassVar[int] = 1

    source_id: str = Field(min_length=1)
    content_hash: str = Field(min_length=1)
    chunk_index: int = Field(ge=0)
    #: The chunk's offsets in the text: a rerun cut differently reuses nothing.
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    model: str = Field(min_length=1)
    domain: str = Field(min_length=1)
    output: dict[str, Any]
    tokens: TokenUsage = Field(default_factory=TokenUsage)


@register
class ExtractionFailed(DomainEvent):
    """A run that could not complete a document: which chunks failed, why, what it cost.

    Follows the run's `ChunkExtracted` events on the document's stream. It is a
    record for `stats` and for whoever reads the log (`tokens` are the ones the
    failed chunks paid: a malformed answer is still billed); completeness is
    decided by `DocumentExtracted` alone.
    """

    event_type: ClassVar[str] = "ExtractionFailed"
    schema_version: ClassVar[int] = 1

    source_id: str = Field(min_length=1)
    content_hash: str = Field(min_length=1)
    model: str = Field(min_length=1)
    failed_chunks: list[int] = Field(min_length=1)
    error: str = Field(min_length=1)
    tokens: TokenUsage = Field(default_factory=TokenUsage)


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
