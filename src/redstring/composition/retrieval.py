"""`Retriever`: free text in, ranked entities out, fusing a semantic and a lexical channel.

It lives in `composition` because it holds an `EmbeddingProvider`, a
`VectorStore` and a `GraphStore` together, and no lower layer may: `vector` and
`graph` are siblings that may not import each other, and neither may import
`embeddings`.

Lexical recall is bounded by keys. A query that shares no key with an entity
cannot be retrieved lexically, however high its string similarity would have
been. There is no full-text index over entity names: candidates come from the
graph store's lexicon (`GraphStore.lexical_candidates`), filed under the
prefix and soundex blocking keys plus a key per name token (ADR 0007), read
rarest key first up to `CANDIDATE_LIMIT` rows. They are screened on their names
in one batch and only a shortlist is parsed and scored in full, so a query's
cost does not grow with the tenant. This is still not BM25 (ADR 0004).

A vector match whose entity the graph store does not have is skipped, and the
result is not backfilled to k. The two stores are independent projections of
one log and lag independently, so this is ordinary, not exceptional: raising
would make retrieval fail during replay, and topping up would turn a badly
lagging projection into silence.

Channels are fused by `reciprocal_rank_fusion`; entities tied exactly on the
fused score are then ordered by their better component score (ADR 0009).

Aliases are resolved on both channels before fusion: a merged-away id is never
returned, its canonical entity is, once, at the better of the ranks it earned.

**The chunk channel** (`passages=True`, with a `ChunkStore`): the query's BM25 hits
among the tenant's chunks, mapped to the entities whose provenance points into them
(`ChunkRecord.entity_ids`, aliases resolved). An entity ranks by the best chunk that
names it; within one chunk, an entity whose name shares more of the query's terms
comes first, then the chunk's own order. It is a third ranking for the same RRF, and
it is off unless asked for: entity-only search answers exactly as before (ADR 0014).
`passages` ranks by the chunk channel alone.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from redstring.domain.blocking import query_lexical_keys
from redstring.domain.chunk import query_terms, terms
from redstring.domain.exceptions import DimensionMismatchError, InvalidInputError
from redstring.domain.fusion import order_ties_by_component, reciprocal_rank_fusion
from redstring.domain.lexical import CANDIDATE_LIMIT, lexical_score, name_scores, shortlist_size
from redstring.domain.retrieval import RetrievalMode, RetrievalResult, ScoredEntity

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.entity import Entity
    from redstring.domain.ids import EntityId, TenantId
    from redstring.ports.chunk_store import ChunkStore
    from redstring.ports.embedding import EmbeddingProvider
    from redstring.ports.graph_store import GraphStore
    from redstring.ports.vector_store import VectorStore


#: Chunks the chunk channel reads per query, at least (and at least `2 * k`): a chunk
#: names several entities, so k chunks give more than k candidates, but the type
#: filter applies after the mapping and may drop most of them.
PASSAGE_FETCH = 20


class Retriever:
    """Hybrid entity retrieval over one workspace's stores."""

    def __init__(
        self,
        embeddings: EmbeddingProvider,
        vectors: VectorStore,
        graph: GraphStore,
        chunks: ChunkStore | None = None,
    ) -> None:
        """Refuses a provider and store of different dimensions now, before any text is
        embedded, rather than on the first query."""
        if embeddings.dimension != vectors.dimension:
            raise DimensionMismatchError(
                vectors.dimension, embeddings.dimension, "embedding provider output"
            )
        self._embeddings = embeddings
        self._vectors = vectors
        self._graph = graph
        self._chunks = chunks

    async def retrieve(
        self,
        query: str,
        tenant_id: TenantId,
        *,
        k: int = 10,
        entity_types: Sequence[str] | None = None,
        mode: RetrievalMode = RetrievalMode.HYBRID,
        passages: bool = False,
    ) -> RetrievalResult:
        """The best `k` entities of `tenant_id` for `query`, best first.

        `entity_types=None` is no filter, `[]` matches nothing; the filter applies
        inside each channel before `k`. `passages` adds the chunk channel to `mode`'s
        (module docstring). Raises `InvalidInputError` (a `ValueError`) for a blank
        query, a negative `k`, or `passages` without a chunk store.
        """
        self._check(query, k, passages=passages)
        if k == 0:
            return RetrievalResult(query=query)

        semantic: dict[EntityId, float] = {}
        semantic_ranking: list[EntityId] = []
        lexical: dict[EntityId, tuple[Entity, float]] = {}
        if mode is RetrievalMode.HYBRID:
            # Semantic first: a provider that suspends on the query embedding (a
            # remote endpoint) lets the lexical channel run meanwhile. The local model
            # embeds a short query inline instead: a worker thread lost more to GIL
            # hand-offs with the lexical channel than the overlap gained.
            (semantic_ranking, semantic), lexical = await asyncio.gather(
                self._semantic(query, tenant_id, k, entity_types),
                self._lexical(query, tenant_id, k, entity_types),
            )
        elif mode is RetrievalMode.SEMANTIC:
            semantic_ranking, semantic = await self._semantic(query, tenant_id, k, entity_types)
        else:
            lexical = await self._lexical(query, tenant_id, k, entity_types)
        passage = await self._passages(query, tenant_id, k, entity_types) if passages else {}

        best = {entity_id: score for entity_id, (_, score) in lexical.items()}
        for entity_id, score in semantic.items():
            best[entity_id] = max(best.get(entity_id, 0.0), score)
        fused = order_ties_by_component(
            reciprocal_rank_fusion([list(passage), semantic_ranking, list(lexical)]), best
        )[:k]
        known = {entity_id: entity for entity_id, (entity, _) in lexical.items()}
        known.update((entity_id, entity) for entity_id, (entity, _) in passage.items())
        missing = [entity_id for entity_id, _ in fused if entity_id not in known]
        if missing:
            for entity in await self._graph.get_entities(missing, tenant_id):
                known[entity.id] = entity

        matches = [
            ScoredEntity(
                entity=known[entity_id],
                score=score,
                semantic=semantic.get(entity_id),
                lexical=lexical[entity_id][1] if entity_id in lexical else None,
                passage=passage[entity_id][1] if entity_id in passage else None,
            )
            for entity_id, score in fused
            if entity_id in known
        ]
        return RetrievalResult(query=query, matches=matches)

    async def passages(
        self,
        query: str,
        tenant_id: TenantId,
        *,
        k: int = 10,
        entity_types: Sequence[str] | None = None,
    ) -> RetrievalResult:
        """The best `k` entities by the chunk channel alone (module docstring)."""
        self._check(query, k, passages=True)
        if k == 0:
            return RetrievalResult(query=query)
        ranked = await self._passages(query, tenant_id, k, entity_types)
        fused = reciprocal_rank_fusion([list(ranked)])
        return RetrievalResult(
            query=query,
            matches=[
                ScoredEntity(entity=ranked[entity_id][0], score=score, passage=ranked[entity_id][1])
                for entity_id, score in fused
            ],
        )

    def _check(self, query: str, k: int, *, passages: bool) -> None:
        if not query.strip():
            raise InvalidInputError("the query is blank")
        if k < 0:
            raise InvalidInputError(f"k must not be negative, got {k}")
        if passages and self._chunks is None:
            raise InvalidInputError(
                "the chunk channel needs a chunk store; this retriever has none"
            )

    async def _passages(
        self, query: str, tenant_id: TenantId, k: int, entity_types: Sequence[str] | None
    ) -> dict[EntityId, tuple[Entity, float]]:
        """Entities named by the query's best chunks, best first, type-filtered before
        the cut to `k`, each with the BM25 score of its best chunk (module docstring)."""
        assert self._chunks is not None  # _check
        found = await self._chunks.search(query, tenant_id, k=max(PASSAGE_FETCH, 2 * k))
        wanted_terms = set(query_terms(query))
        keys: dict[EntityId, tuple[int, int, int]] = {}
        scores: dict[EntityId, float] = {}
        raw_ids = list(dict.fromkeys(e for match in found for e in match.chunk.entity_ids))
        canonical = await self._graph.resolve_many(raw_ids, tenant_id)
        entities = {
            e.id: e
            for e in await self._graph.get_entities(list(set(canonical.values())), tenant_id)
        }
        for rank, match in enumerate(found):
            for position, raw in enumerate(match.chunk.entity_ids):
                entity = entities.get(canonical[raw])
                if entity is None or entity.id in keys:
                    continue
                if entity_types is not None and entity.entity_type not in entity_types:
                    continue
                shared = len(wanted_terms.intersection(terms(entity.name)))
                keys[entity.id] = (rank, -shared, position)
                scores[entity.id] = match.score
        ranked = sorted(keys, key=lambda entity_id: (keys[entity_id], str(entity_id)))[:k]
        return {entity_id: (entities[entity_id], scores[entity_id]) for entity_id in ranked}

    async def _semantic(
        self, query: str, tenant_id: TenantId, k: int, entity_types: Sequence[str] | None
    ) -> tuple[list[EntityId], dict[EntityId, float]]:
        [vector] = await self._embeddings.embed_query([query])
        found = await self._vectors.search(vector, tenant_id, k=k, entity_types=entity_types)
        resolved = await self._graph.resolve_many([match.entity_id for match in found], tenant_id)
        ranking: list[EntityId] = []
        scores: dict[EntityId, float] = {}
        for match in found:
            canonical = resolved[match.entity_id]
            ranking.append(canonical)
            scores[canonical] = max(scores.get(canonical, 0.0), match.score)
        return ranking, scores

    async def _lexical(
        self, query: str, tenant_id: TenantId, k: int, entity_types: Sequence[str] | None
    ) -> dict[EntityId, tuple[Entity, float]]:
        """Candidates from the query's lexicon keys (bounded by `CANDIDATE_LIMIT`),
        filtered by type and screened on their names, then the shortlist scored with
        `lexical_score` and cut to `k` -- filtering after the cut would drop matches
        that exist. A candidate scoring 0.0 shares nothing with the query and is not
        ranked."""
        found = await self._graph.lexical_candidates(
            query_lexical_keys(query), tenant_id, limit=CANDIDATE_LIMIT
        )
        scores = name_scores(query, found)
        wanted = None if entity_types is None else set(entity_types)
        kept: list[int] = []
        for index, candidate in enumerate(found):
            if wanted is not None and candidate.entity_type not in wanted:
                continue
            if scores[index] <= 0.0:
                # Nothing in common is no match, whatever key filed it; and one
                # poor candidate says nothing about the ones after it.
                continue
            kept.append(index)
        # Stable, and candidates come in id order: ties stay in id order.
        kept.sort(key=scores.__getitem__, reverse=True)
        kept = kept[: shortlist_size(k, [scores[index] for index in kept])]
        shortlist = [found[index].entity_id for index in kept]
        scored: dict[EntityId, tuple[Entity, float]] = {}
        for entity in await self._graph.get_entities(shortlist, tenant_id):
            scored[entity.id] = (entity, lexical_score(query, entity))
        best = sorted(scored.values(), key=lambda pair: (-pair[1], str(pair[0].id)))[:k]
        return {entity.id: (entity, score) for entity, score in best}
