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
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from redstring.domain.blocking import query_lexical_keys
from redstring.domain.exceptions import DimensionMismatchError, InvalidInputError
from redstring.domain.fusion import order_ties_by_component, reciprocal_rank_fusion
from redstring.domain.lexical import CANDIDATE_LIMIT, lexical_score, name_scores, shortlist_size
from redstring.domain.retrieval import RetrievalMode, RetrievalResult, ScoredEntity

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.entity import Entity
    from redstring.domain.ids import EntityId, TenantId
    from redstring.ports.embedding import EmbeddingProvider
    from redstring.ports.graph_store import GraphStore
    from redstring.ports.vector_store import VectorStore


class Retriever:
    """Hybrid entity retrieval over one workspace's stores."""

    def __init__(
        self, embeddings: EmbeddingProvider, vectors: VectorStore, graph: GraphStore
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

    async def retrieve(
        self,
        query: str,
        tenant_id: TenantId,
        *,
        k: int = 10,
        entity_types: Sequence[str] | None = None,
        mode: RetrievalMode = RetrievalMode.HYBRID,
    ) -> RetrievalResult:
        """The best `k` entities of `tenant_id` for `query`, best first.

        `entity_types=None` is no filter, `[]` matches nothing; the filter applies
        inside each channel before `k`. Raises `InvalidInputError` (a `ValueError`)
        for a blank query or a negative `k`.
        """
        if not query.strip():
            raise InvalidInputError("the query is blank")
        if k < 0:
            raise InvalidInputError(f"k must not be negative, got {k}")
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

        best = {entity_id: score for entity_id, (_, score) in lexical.items()}
        for entity_id, score in semantic.items():
            best[entity_id] = max(best.get(entity_id, 0.0), score)
        fused = order_ties_by_component(
            reciprocal_rank_fusion([semantic_ranking, list(lexical)]), best
        )[:k]
        known = {entity_id: entity for entity_id, (entity, _) in lexical.items()}
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
            )
            for entity_id, score in fused
            if entity_id in known
        ]
        return RetrievalResult(query=query, matches=matches)

    async def _semantic(
        self, query: str, tenant_id: TenantId, k: int, entity_types: Sequence[str] | None
    ) -> tuple[list[EntityId], dict[EntityId, float]]:
        [vector] = await self._embeddings.embed_query([query])
        found = await self._vectors.search(vector, tenant_id, k=k, entity_types=entity_types)
        ranking: list[EntityId] = []
        scores: dict[EntityId, float] = {}
        for match in found:
            canonical = await self._graph.resolve(match.entity_id, tenant_id)
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
