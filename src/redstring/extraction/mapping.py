"""From per-chunk extractions to domain `Entity` and `Relationship` values.

Ids are derived (`document_entity_id`, `derived_relationship_id`): the same
tenant, document, type and normalized name is the same entity, so re-ingesting a
document upserts. The same name in another document is another entity: one word
names many things across a corpus ("Milan" in Italy and in New Hampshire, this
"Monday" and that one), and only the resolver, reading context, may join them
(ADR 0012). Within a document, mentions that map to one id are merged here:
provenance is the union (one record per chunk and span), confidence the highest
seen, properties the union with the first value kept on a conflict (the earliest
mention is the one a reader meets first).

Provenance spans are *document* offsets (chunk offset + `chunk.start`), one
provenance per occurrence the extractor reported: mention-level evaluation and
the text resolver's document evidence read every occurrence, not only the first.
A name the extractor did not copy verbatim gets a provenance without a span.

A relationship's provenance has the span of the words that stated it when the
extractor reports one (the offline patterns do), else none.

A relationship's endpoints are looked up by normalized name, first among the
entities of its own chunk, then among the document's. An endpoint that was
never extracted, or an edge whose two ends are one entity, is not stored: it
is reported in `DocumentGraph.unresolved` with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TypeVar

from redstring.domain.entity import Entity
from redstring.domain.ids import (
    EntityId,
    TenantId,
    derived_relationship_id,
    document_entity_id,
)
from redstring.domain.normalization import normalize_name
from redstring.domain.provenance import Provenance
from redstring.domain.relationship import Relationship
from redstring.extraction.relations import SpannedRelation

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic import JsonValue

    from redstring.extraction.extractor import ChunkExtraction, EntityMention

#: Confidence of a mention whose extractor stated none: the domain types' default.
UNSTATED_CONFIDENCE = 1.0

#: What `merge_observations` merges: an entity or a relationship, never a mix.
Observation = TypeVar("Observation", Entity, Relationship)


@dataclass(frozen=True, slots=True)
class UnresolvedRelationship:
    """A relationship mention that could not become a `Relationship`, and why."""

    source: str
    target: str
    relationship_type: str
    chunk_index: int
    reason: str


@dataclass(slots=True)
class DocumentGraph:
    entities: list[Entity] = field(default_factory=list)
    relationships: list[Relationship] = field(default_factory=list)
    unresolved: list[UnresolvedRelationship] = field(default_factory=list)


def _provenance_key(p: Provenance) -> tuple[object, ...]:
    return (p.source_id, p.chunk_index, p.char_start, p.char_end, p.method, p.model)


def _union_provenance(left: list[Provenance], right: list[Provenance]) -> list[Provenance]:
    seen = {_provenance_key(p) for p in left}
    merged = list(left)
    for p in right:
        if _provenance_key(p) not in seen:
            seen.add(_provenance_key(p))
            merged.append(p)
    return merged


def _union_properties(
    left: dict[str, JsonValue], right: dict[str, JsonValue]
) -> dict[str, JsonValue]:
    return {**right, **left}


def merge_observations(first: Observation, other: Observation) -> Observation:
    """Two observations of one id (entity or relationship): union provenance, max
    confidence, union properties with the first observation's value kept."""
    if first.id != other.id:
        raise ValueError(f"cannot merge observations of two ids: {first.id} and {other.id}")
    return first.model_copy(
        update={
            "confidence": max(first.confidence, other.confidence),
            "properties": _union_properties(first.properties, other.properties),
            "provenance": _union_provenance(first.provenance, other.provenance),
        }
    )


def _mention_properties(mention: EntityMention) -> dict[str, JsonValue]:
    properties: dict[str, JsonValue] = dict(mention.properties)
    if mention.description:
        properties.setdefault("description", mention.description)
    return properties


def map_document(
    tenant_id: TenantId,
    source_id: str,
    extractions: Sequence[ChunkExtraction],
    *,
    observed_at: datetime | None = None,
) -> DocumentGraph:
    """All entities and relationships of one document's extractions, merged by id."""
    when = observed_at or datetime.now(UTC)
    entities: dict[EntityId, Entity] = {}
    document_names: dict[str, EntityId] = {}
    graph = DocumentGraph()
    relationships: dict[object, Relationship] = {}

    for extraction in extractions:
        chunk = extraction.chunk
        chunk_names: dict[str, EntityId] = {}
        for mention in extraction.entities:
            normalized = normalize_name(mention.name)
            if not normalized:
                continue
            entity_id = document_entity_id(tenant_id, source_id, mention.entity_type, normalized)
            spans: Sequence[tuple[int, int] | None] = mention.spans or (None,)
            provenance = [
                Provenance(
                    observed_at=when,
                    method=extraction.method,
                    model=extraction.model,
                    source_id=source_id,
                    chunk_index=chunk.index,
                    char_start=chunk.start + span[0] if span else None,
                    char_end=chunk.start + span[1] if span else None,
                )
                for span in spans
            ]
            entity = Entity(
                id=entity_id,
                tenant_id=tenant_id,
                name=mention.name,
                entity_type=mention.entity_type,
                confidence=UNSTATED_CONFIDENCE
                if mention.confidence is None
                else mention.confidence,
                properties=_mention_properties(mention),
                provenance=provenance,
            )
            known = entities.get(entity_id)
            entities[entity_id] = entity if known is None else merge_observations(known, entity)
            chunk_names.setdefault(normalized, entity_id)
            document_names.setdefault(normalized, entity_id)

        for edge in extraction.relationships:
            ends: list[EntityId] = []
            for end_name in (edge.source, edge.target):
                key = normalize_name(end_name)
                found = chunk_names.get(key) or document_names.get(key)
                if found is not None:
                    ends.append(found)
            if len(ends) < 2:
                graph.unresolved.append(
                    UnresolvedRelationship(
                        edge.source,
                        edge.target,
                        edge.relationship_type,
                        chunk.index,
                        "endpoint not among the extracted entities",
                    )
                )
                continue
            source, target = ends
            if source == target:
                graph.unresolved.append(
                    UnresolvedRelationship(
                        edge.source,
                        edge.target,
                        edge.relationship_type,
                        chunk.index,
                        "both endpoints are the same entity",
                    )
                )
                continue
            span = edge.span if isinstance(edge, SpannedRelation) else None
            relationship_id = derived_relationship_id(
                tenant_id, source, edge.relationship_type, target
            )
            properties: dict[str, JsonValue] = (
                {"description": edge.description} if edge.description else {}
            )
            relationship = Relationship(
                id=relationship_id,
                tenant_id=tenant_id,
                source_id=source,
                target_id=target,
                relationship_type=edge.relationship_type,
                confidence=UNSTATED_CONFIDENCE if edge.confidence is None else edge.confidence,
                properties=properties,
                provenance=[
                    Provenance(
                        observed_at=when,
                        method=extraction.method,
                        model=extraction.model,
                        source_id=source_id,
                        chunk_index=chunk.index,
                        char_start=chunk.start + span[0] if span else None,
                        char_end=chunk.start + span[1] if span else None,
                    )
                ],
            )
            known_edge = relationships.get(relationship_id)
            relationships[relationship_id] = (
                relationship if known_edge is None else merge_observations(known_edge, relationship)
            )

    graph.entities = list(entities.values())
    graph.relationships = list(relationships.values())
    return graph
