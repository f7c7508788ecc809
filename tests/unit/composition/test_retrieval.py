"""The composed retrieval surface, over the real in-memory adapters (never MagicMock:
a mock answers any attribute, so a retriever calling a deleted method stays green)."""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import UUID, uuid4

import pytest

from redstring import (
    DimensionMismatchError,
    Entity,
    EntityId,
    FakeEmbeddingProvider,
    InMemoryGraphStore,
    InMemoryVectorStore,
    RetrievalMode,
    Retriever,
    TenantId,
    VectorRecord,
)
from redstring.graph.sqlite import SqliteGraphStore
from redstring.storage.sqlite import open_connection
from redstring.testing import make_entity
from redstring.vector.sqlite import SqliteVectorStore

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from redstring.ports.graph_store import GraphStore
    from redstring.ports.vector_store import VectorStore

DIMENSION = 384


class Stores:
    """One tenant's worth of real stores (in memory, or SQLite + sqlite-vec in one
    file), with helpers to fill them."""

    def __init__(self, backend: str = "memory", folder: Path | None = None) -> None:
        self.embeddings = FakeEmbeddingProvider(dimension=DIMENSION)
        self.vectors: VectorStore
        self.graph: GraphStore
        if backend == "sqlite":
            assert folder is not None
            connection = open_connection(folder / "stores.db")
            self.graph = SqliteGraphStore(connection)
            self.vectors = SqliteVectorStore(connection, DIMENSION)
        else:
            self.graph = InMemoryGraphStore()
            self.vectors = InMemoryVectorStore(dimension=DIMENSION)
        self.tenant = TenantId(uuid4())
        self.retriever = Retriever(
            embeddings=self.embeddings, vectors=self.vectors, graph=self.graph
        )

    async def add(self, *entities: Entity, embed: bool = True, store: bool = True) -> None:
        for entity in entities:
            if store:
                await self.graph.upsert_entities([entity], entity.tenant_id)
            if embed:
                [vector] = await self.embeddings.embed([entity.name])
                record = VectorRecord(
                    entity_id=entity.id, vector=vector, entity_type=entity.entity_type
                )
                await self.vectors.upsert([record], entity.tenant_id)
        self.embeddings.calls = 0

    def entity(self, name: str, **kwargs: object) -> Entity:
        return make_entity(name=name, tenant_id=self.tenant, **kwargs)  # type: ignore[arg-type]


@pytest.fixture(params=["memory", "sqlite"])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Stores:
    """Every retrieval test runs against both embedded backends."""
    return Stores(request.param, tmp_path)


def ids(entities: Sequence[Entity]) -> list[EntityId]:
    return [entity.id for entity in entities]


async def test_an_exact_name_is_retrieved(stores: Stores) -> None:
    ada = stores.entity("Ada Lovelace")
    await stores.add(ada, stores.entity("Charles Babbage"))
    result = await stores.retriever.retrieve("Ada Lovelace", stores.tenant)
    assert result.query == "Ada Lovelace"
    assert result.matches[0].entity == ada


async def test_two_tenants_holding_the_same_entity_id_never_cross(stores: Stores) -> None:
    """Ids from uuid4 never collide by chance, so a key compared on `id` alone survives
    every natural test; both tenants get the *same* id with different names here."""
    shared = EntityId(uuid4())
    other_tenant = TenantId(uuid4())
    mine = stores.entity("Ada Lovelace", entity_id=shared)
    theirs = make_entity(name="Ada Lovelock", tenant_id=other_tenant, entity_id=shared)
    await stores.add(mine, theirs)
    for mode in RetrievalMode:
        mine_result = await stores.retriever.retrieve("Ada Lovelace", stores.tenant, mode=mode)
        assert [m.entity for m in mine_result.matches] == [mine]
        theirs_result = await stores.retriever.retrieve("Ada Lovelock", other_tenant, mode=mode)
        assert [m.entity for m in theirs_result.matches] == [theirs]


async def test_a_vector_match_whose_entity_the_graph_lacks_is_skipped(stores: Stores) -> None:
    """The stores are independent projections and lag independently: omit, don't raise."""
    present = stores.entity("Ada Lovelace")
    dangling = stores.entity("Ada Lovelace Junior")
    await stores.add(present)
    await stores.add(dangling, store=False)
    result = await stores.retriever.retrieve(
        "Ada Lovelace Junior", stores.tenant, mode=RetrievalMode.SEMANTIC
    )
    assert dangling.id not in ids([m.entity for m in result.matches])
    assert present.id in ids([m.entity for m in result.matches])


async def test_a_skipped_dangling_match_is_not_backfilled(stores: Stores) -> None:
    """Distinct from the skip test: it asserts the *count*. k=3 over four stored
    vectors and one dangling one at the top -> two results, though a third stored
    match exists further down. Topping up to k would hide a lagging projection."""
    kept = [stores.entity(name) for name in ("Alpha One", "Beta Two", "Delta Four")]
    dangling = stores.entity("Gamma Three")
    await stores.add(*kept)
    await stores.add(dangling, store=False)
    result = await stores.retriever.retrieve(
        "Gamma Three", stores.tenant, k=3, mode=RetrievalMode.SEMANTIC
    )
    assert len(result.matches) == 2
    assert set(ids([m.entity for m in result.matches])) < set(ids(kept))


async def test_the_lexical_channel_scores_a_candidate_after_a_zero_scoring_one(
    stores: Stores,
) -> None:
    """A bad row followed by a good one under the same key. A loop that stops at the
    first non-match (`break` for `continue`) drops the answer."""
    query = "Ada Lovelace"
    # Filed by hand under the query's prefix key, with a name sharing no character
    # with the query, and an id that sorts first so it is met first.
    poor = Entity(
        id=EntityId(UUID("00000000-0000-4000-8000-000000000001")),
        tenant_id=stores.tenant,
        name="Zyxqq",
        entity_type="person",
        blocking_keys=["p:ada ", "t:person"],
    )
    # The good one is filed under the prefix key alone, so no other key's group can
    # rescue it: it is reachable only after the poor one.
    good = Entity(
        id=EntityId(UUID("ffffffff-0000-4000-8000-000000000001")),
        tenant_id=stores.tenant,
        name=query,
        entity_type="person",
        blocking_keys=["p:ada ", "t:person"],
    )
    await stores.add(poor, good, embed=False)
    result = await stores.retriever.retrieve(query, stores.tenant, mode=RetrievalMode.LEXICAL)
    assert [m.entity.id for m in result.matches] == [good.id]


async def test_entity_types_filters_the_lexical_channel_before_k_is_applied(stores: Stores) -> None:
    """k=1 with a non-matching candidate ranked above a matching one: truncating first
    and filtering after returns nothing while a match exists."""
    org = stores.entity("Ada Lovelace", entity_type="organization")
    person = stores.entity("Ada Lovelac", entity_type="person")
    await stores.add(org, person, embed=False)
    result = await stores.retriever.retrieve(
        "Ada Lovelace", stores.tenant, k=1, entity_types=["person"], mode=RetrievalMode.LEXICAL
    )
    assert [m.entity.id for m in result.matches] == [person.id]


async def test_a_result_reports_both_component_scores_when_both_channels_ranked(
    stores: Stores,
) -> None:
    ada = stores.entity("Ada Lovelace")
    await stores.add(ada)
    [match] = (await stores.retriever.retrieve("Ada Lovelace", stores.tenant)).matches
    assert match.semantic == pytest.approx(1.0)
    assert match.lexical == 1.0
    assert match.score == pytest.approx(2 / 61)


async def test_a_semantic_only_mode_leaves_lexical_none(stores: Stores) -> None:
    """`None` is the claim that the channel did not rank it."""
    await stores.add(stores.entity("Ada Lovelace"))
    result = await stores.retriever.retrieve(
        "Ada Lovelace", stores.tenant, mode=RetrievalMode.SEMANTIC
    )
    assert result.matches
    assert all(m.lexical is None and m.semantic is not None for m in result.matches)


async def test_a_lexical_only_mode_makes_no_embedding_call(stores: Stores) -> None:
    """Correct output with a paid round trip per query is invisible to result checks."""
    await stores.add(stores.entity("Ada Lovelace"))
    result = await stores.retriever.retrieve(
        "Ada Lovelace", stores.tenant, mode=RetrievalMode.LEXICAL
    )
    assert result.matches
    assert all(m.semantic is None for m in result.matches)
    assert stores.embeddings.calls == 0


class CopyingGraphStore(InMemoryGraphStore):
    """Reads return equal but distinct objects, as a serializing adapter would."""

    async def get_entities(
        self, entity_ids: Sequence[EntityId], tenant_id: TenantId
    ) -> list[Entity]:
        found = await super().get_entities(entity_ids, tenant_id)
        return [Entity.model_validate(entity.model_dump()) for entity in found]

    async def find_by_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId
    ) -> dict[str, list[Entity]]:
        found = await super().find_by_blocking_keys(keys, tenant_id)
        return {
            key: [Entity.model_validate(entity.model_dump()) for entity in group]
            for key, group in found.items()
        }


async def test_entities_are_compared_by_equality_not_identity(stores: Stores) -> None:
    """The same entity under two keys arrives as two distinct, equal objects; it must
    be counted once."""
    stores.graph = CopyingGraphStore()
    stores.retriever = Retriever(
        embeddings=stores.embeddings, vectors=stores.vectors, graph=stores.graph
    )
    ada = stores.entity("Ada Lovelace")
    await stores.add(ada)
    result = await stores.retriever.retrieve("Ada Lovelace", stores.tenant)
    assert [m.entity for m in result.matches] == [ada]


async def test_mutating_a_result_cannot_change_what_a_later_retrieve_returns(
    stores: Stores,
) -> None:
    ada = stores.entity("Ada Lovelace", properties={"tags": ["math"]})
    await stores.add(ada)
    first = await stores.retriever.retrieve("Ada Lovelace", stores.tenant)
    first.matches[0].entity.name = "Mutated"
    tags = first.matches[0].entity.properties["tags"]
    assert isinstance(tags, list)
    tags.append("poetry")
    second = await stores.retriever.retrieve("Ada Lovelace", stores.tenant)
    assert second.matches[0].entity == ada


@pytest.mark.parametrize("blank", ["", "   ", "\t\n"])
async def test_a_blank_query_raises(blank: str, stores: Stores) -> None:
    with pytest.raises(ValueError, match="blank"):
        await stores.retriever.retrieve(blank, stores.tenant)


async def test_k_zero_returns_nothing_and_a_negative_k_raises(stores: Stores) -> None:
    await stores.add(stores.entity("Ada Lovelace"))
    assert (await stores.retriever.retrieve("Ada Lovelace", stores.tenant, k=0)).matches == []
    with pytest.raises(ValueError, match="k"):
        await stores.retriever.retrieve("Ada Lovelace", stores.tenant, k=-1)


async def test_empty_entity_types_matches_nothing(stores: Stores) -> None:
    """`[]` means nothing matches; `None` means no filter. Same as the port."""
    await stores.add(stores.entity("Ada Lovelace"))
    none = await stores.retriever.retrieve("Ada Lovelace", stores.tenant, entity_types=[])
    assert none.matches == []
    unfiltered = await stores.retriever.retrieve("Ada Lovelace", stores.tenant, entity_types=None)
    assert len(unfiltered.matches) == 1


async def test_a_provider_and_store_of_different_dimensions_are_refused() -> None:
    """At construction, before any text is embedded."""
    with pytest.raises(DimensionMismatchError):
        Retriever(
            embeddings=FakeEmbeddingProvider(dimension=8),
            vectors=InMemoryVectorStore(dimension=16),
            graph=InMemoryGraphStore(),
        )


async def test_more_results_than_k_are_truncated(stores: Stores) -> None:
    await stores.add(*(stores.entity(f"Ada Lovelace {i}") for i in range(6)))
    result = await stores.retriever.retrieve("Ada Lovelace", stores.tenant, k=3)
    assert len(result.matches) == 3
    scores = [m.score for m in result.matches]
    assert scores == sorted(scores, reverse=True)


async def test_a_merged_away_id_is_never_returned_and_its_canonical_is_returned_once(
    stores: Stores,
) -> None:
    """Beyond the plan: the vector store may still hold the merged-away id's vector;
    retrieval resolves it to the canonical, which appears once."""
    canonical = stores.entity("Ada Lovelace")
    merged_away = stores.entity("Ada Lovelace")
    await stores.add(canonical, merged_away)
    await stores.graph.delete_entities([merged_away.id], stores.tenant)
    await stores.graph.set_alias(merged_away.id, canonical.id, stores.tenant)
    result = await stores.retriever.retrieve("Ada Lovelace", stores.tenant)
    assert [m.entity.id for m in result.matches] == [canonical.id]


async def test_a_merged_away_vector_alone_still_finds_its_canonical(stores: Stores) -> None:
    """The canonical has no vector of its own (the vector projection lags), only the
    merged-away id's remains: the semantic channel must resolve the hit rather than
    drop it as an entity the graph does not hold."""
    canonical = stores.entity("Ada Lovelace")
    merged_away = stores.entity("Ada Lovelace")
    await stores.add(canonical, embed=False)
    await stores.add(merged_away, store=False)
    await stores.graph.set_alias(merged_away.id, canonical.id, stores.tenant)
    result = await stores.retriever.retrieve(
        "Ada Lovelace", stores.tenant, mode=RetrievalMode.SEMANTIC
    )
    assert [m.entity.id for m in result.matches] == [canonical.id]
    assert result.matches[0].semantic is not None


async def test_a_query_whose_first_word_differs_is_found_lexically(stores: Stores) -> None:
    """The query "Bill Clinton" shares no whole-name prefix or soundex with "William Jefferson
    Clinton"; only a token key reaches it, which whole-name blocking never did."""
    clinton = stores.entity("William Jefferson Clinton")
    await stores.add(clinton, stores.entity("Bill Gates"), embed=False)
    result = await stores.retriever.retrieve(
        "Bill Clinton", stores.tenant, mode=RetrievalMode.LEXICAL
    )
    assert clinton.id in ids([m.entity for m in result.matches])
