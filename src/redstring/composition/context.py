"""`ContextBuilder`: a question in, a `ContextAnswer` out (entities, relationships, chunks).

It composes a `Retriever` (entity channels and the chunk channel, fused), the
`GraphStore` (expansion and relationships) and the `ChunkStore` (supporting text),
which no lower layer may hold together.

1. **Seeds**: the `Retriever`'s best `k` entities with the chunk channel on.
2. **Expansion**: breadth-first from the seeds, `hops` steps (1 or 2) along
   relationships of `relationship_types` (all when `None`), at most `max_entities`
   entities in all, seeds included. Neighbours are taken in seed order, then by
   relationship id, so the same graph gives the same context.
3. **Relationships** among the included entities (of `relationship_types`), ordered
   by their better-ranked endpoint, then id.
4. **Chunks**: two rankings of chunk ids fused by the same RRF -- the query's BM25
   hits, and the chunks the provenance of the entity channels' own ranking (chunk
   channel off), then of the neighbours, points into. Seeding that second ranking
   with the chunk channel on would count BM25 twice: on CoNLL04 it lowered MRR@10
   from 0.947 to 0.907 on relation questions and from 0.955 to 0.950 on names
   (`bench/chunks.py`). Exact ties go to the chunk with the better BM25 score.
   Each chunk carries the spans of the included entities it mentions.
5. **Budget**: entities, then relationships, then chunks, each section in rank
   order; an item that does not fit is skipped (a later, smaller one may still
   fit) and the answer says it was truncated. `render_*` give the text that is
   counted, and the text `ask` puts in its prompt: one definition of both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from redstring.domain.chunk import chunk_id_for
from redstring.domain.context import (
    ContextAnswer,
    ContextChunk,
    ContextEntity,
    MentionSpan,
    estimate_tokens,
)
from redstring.domain.exceptions import InvalidInputError
from redstring.domain.fusion import order_ties_by_component, reciprocal_rank_fusion
from redstring.domain.retrieval import RetrievalMode

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from redstring.composition.retrieval import Retriever
    from redstring.domain.chunk import ChunkRecord
    from redstring.domain.entity import Entity
    from redstring.domain.ids import EntityId, TenantId
    from redstring.domain.relationship import Relationship
    from redstring.ports.chunk_store import ChunkStore
    from redstring.ports.graph_store import GraphStore

#: Hops the expansion may take: two already reaches most of a small graph.
MAX_HOPS = 2
#: Entities in a context, seeds included, unless the caller says otherwise.
MAX_ENTITIES = 30
#: Chunks ranked before the budget is applied.
MAX_CHUNKS = 20
#: Estimated tokens of a context unless the caller says otherwise.
DEFAULT_TOKEN_BUDGET = 2000


def render_entity(entity: Entity) -> str:
    return f"{entity.name} ({entity.entity_type})"


def render_relationship(relationship: Relationship, names: Mapping[EntityId, str]) -> str:
    source = names.get(relationship.source_id, str(relationship.source_id))
    target = names.get(relationship.target_id, str(relationship.target_id))
    return f"{source} -[{relationship.relationship_type}]-> {target}"


def render_chunk(chunk: ContextChunk) -> str:
    return f"[{chunk.chunk_id}] {chunk.text}"


async def expand(
    graph: GraphStore,
    tenant_id: TenantId,
    seeds: Sequence[EntityId],
    *,
    hops: int,
    relationship_types: Sequence[str] | None,
    limit: int,
) -> list[ContextEntity]:
    """Entities within `hops` of `seeds` (not the seeds), nearest first, at most `limit`
    (module docstring, step 2)."""
    if not 0 <= hops <= MAX_HOPS:
        raise InvalidInputError(f"hops must be between 0 and {MAX_HOPS}, got {hops}")
    if limit < 0:
        raise InvalidInputError(f"the entity limit must not be negative, got {limit}")
    wanted = None if relationship_types is None else set(relationship_types)
    seen = set(seeds)
    frontier = list(seeds)
    found: list[ContextEntity] = []
    for hop in range(1, hops + 1):
        following: list[EntityId] = []
        for entity_id in frontier:
            for edge in await graph.relationships(entity_id, tenant_id):
                if wanted is not None and edge.relationship_type not in wanted:
                    continue
                other = edge.target_id if edge.source_id == entity_id else edge.source_id
                if other in seen:
                    continue
                if len(found) >= limit:
                    return found
                entity = await graph.get_entity(other, tenant_id)
                if entity is None or entity.id in seen:
                    continue
                seen.update((other, entity.id))
                found.append(ContextEntity(entity=entity, hops=hop, via=edge.id))
                following.append(entity.id)
        frontier = following
    return found


class ContextBuilder:
    """Builds `ContextAnswer`s over one workspace's stores (module docstring)."""

    def __init__(self, retriever: Retriever, graph: GraphStore, chunks: ChunkStore) -> None:
        self._retriever = retriever
        self._graph = graph
        self._chunks = chunks

    async def context(
        self,
        query: str,
        tenant_id: TenantId,
        *,
        k: int = 10,
        mode: RetrievalMode = RetrievalMode.HYBRID,
        entity_types: Sequence[str] | None = None,
        hops: int = 1,
        relationship_types: Sequence[str] | None = None,
        max_entities: int = MAX_ENTITIES,
        token_budget: int = DEFAULT_TOKEN_BUDGET,
    ) -> ContextAnswer:
        """The context for `query` (module docstring). Raises `InvalidInputError` for a
        blank query, a negative `k`, `max_entities` or budget, or `hops` outside 0..2."""
        if token_budget < 0:
            raise InvalidInputError(f"the token budget must not be negative, got {token_budget}")
        if max_entities < 0:
            raise InvalidInputError(f"max_entities must not be negative, got {max_entities}")
        retrieved = await self._retriever.retrieve(
            query,
            tenant_id,
            k=min(k, max_entities),
            entity_types=entity_types,
            mode=mode,
            passages=True,
        )
        seeds = [
            ContextEntity(entity=match.entity, hops=0, score=match.score)
            for match in retrieved.matches
        ]
        by_entities = await self._retriever.retrieve(
            query, tenant_id, k=min(k, max_entities), entity_types=entity_types, mode=mode
        )
        expanded = await expand(
            self._graph,
            tenant_id,
            [seed.entity.id for seed in seeds],
            hops=hops,
            relationship_types=relationship_types,
            limit=max_entities - len(seeds),
        )
        entities = [*seeds, *expanded]
        relationships = await self._relationships(entities, tenant_id, relationship_types)
        support = [match.entity for match in by_entities.matches]
        support.extend(item.entity for item in expanded)
        chunks = await self._chunks_for(query, tenant_id, support, entities)
        return _within_budget(query, entities, relationships, chunks, token_budget)

    async def _relationships(
        self,
        entities: Sequence[ContextEntity],
        tenant_id: TenantId,
        relationship_types: Sequence[str] | None,
    ) -> list[Relationship]:
        rank = {item.entity.id: position for position, item in enumerate(entities)}
        wanted = None if relationship_types is None else set(relationship_types)
        found: dict[str, Relationship] = {}
        for item in entities:
            for edge in await self._graph.relationships(item.entity.id, tenant_id):
                inside = edge.source_id in rank and edge.target_id in rank
                if inside and (wanted is None or edge.relationship_type in wanted):
                    found[str(edge.id)] = edge
        return sorted(
            found.values(),
            key=lambda e: (min(rank[e.source_id], rank[e.target_id]), str(e.id)),
        )

    async def _chunks_for(
        self,
        query: str,
        tenant_id: TenantId,
        support: Sequence[Entity],
        entities: Sequence[ContextEntity],
    ) -> list[ContextChunk]:
        """Step 4: BM25 hits and `support`'s provenance chunks, fused; spans of `entities`."""
        hits = await self._chunks.search(query, tenant_id, k=MAX_CHUNKS)
        bm25 = {hit.chunk.chunk_id: hit.score for hit in hits}
        records: dict[str, ChunkRecord] = {hit.chunk.chunk_id: hit.chunk for hit in hits}
        supported: list[str] = []
        for entity in support:
            for provenance in entity.provenance:
                if provenance.chunk_index is not None:
                    supported.append(chunk_id_for(provenance.source_id, provenance.chunk_index))
        # Exact ties (one chunk first by BM25, another first by support) go to the
        # chunk that holds the query's words, as ADR 0009 breaks entity ties.
        fused = order_ties_by_component(
            reciprocal_rank_fusion([list(bm25), list(dict.fromkeys(supported))]), bm25
        )[:MAX_CHUNKS]
        missing = [chunk_id for chunk_id, _ in fused if chunk_id not in records]
        for fetched in await self._chunks.get(missing, tenant_id):
            records[fetched.chunk_id] = fetched
        chunks = []
        for chunk_id, score in fused:
            record = records.get(chunk_id)
            if record is None:
                continue  # provenance into a chunk the store does not hold (records, old logs)
            chunks.append(
                ContextChunk(
                    chunk_id=chunk_id,
                    source_id=record.source_id,
                    start=record.start,
                    end=record.end,
                    text=record.text,
                    score=score,
                    bm25=bm25.get(chunk_id),
                    mentions=_mentions(record, entities),
                )
            )
        return chunks


def _mentions(record: ChunkRecord, entities: Sequence[ContextEntity]) -> list[MentionSpan]:
    """Spans of the context's entities that fall inside `record`, in text order."""
    spans = []
    for item in entities:
        for p in item.entity.provenance:
            if (
                p.source_id == record.source_id
                and p.char_start is not None
                and p.char_end is not None
                and record.start <= p.char_start
                and p.char_end <= record.end
            ):
                span = MentionSpan(entity_id=item.entity.id, start=p.char_start, end=p.char_end)
                spans.append(span)
    unique = {(s.start, s.end, str(s.entity_id)): s for s in spans}
    return [unique[key] for key in sorted(unique)]


def _within_budget(
    query: str,
    entities: Sequence[ContextEntity],
    relationships: Sequence[Relationship],
    chunks: Sequence[ContextChunk],
    budget: int,
) -> ContextAnswer:
    """Module docstring, step 5."""
    spent = 0
    truncated = False

    def fits(text: str) -> bool:
        nonlocal spent, truncated
        cost = estimate_tokens(text)
        if spent + cost > budget:
            truncated = True
            return False
        spent += cost
        return True

    kept_entities = [item for item in entities if fits(render_entity(item.entity))]
    names = {item.entity.id: item.entity.name for item in kept_entities}
    kept_relationships = [
        edge
        for edge in relationships
        if edge.source_id in names
        and edge.target_id in names
        and fits(render_relationship(edge, names))
    ]
    kept_ids = set(names)
    kept_chunks = []
    for chunk in chunks:
        if fits(render_chunk(chunk)):
            mentions = [m for m in chunk.mentions if m.entity_id in kept_ids]
            kept_chunks.append(chunk.model_copy(update={"mentions": mentions}))
    return ContextAnswer(
        query=query,
        entities=kept_entities,
        relationships=kept_relationships,
        chunks=kept_chunks,
        token_budget=budget,
        tokens=spent,
        truncated=truncated,
    )
