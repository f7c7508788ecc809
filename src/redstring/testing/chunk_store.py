"""The `ChunkStore` compliance suite."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING
from uuid import uuid4

import pytest

from redstring.domain.chunk import ChunkRecord
from redstring.domain.ids import EntityId
from redstring.testing.factories import TwoTenants

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.ids import TenantId
    from redstring.ports.chunk_store import ChunkStore


def chunk(
    text: str,
    chunk_id: str | None = None,
    source_id: str = "doc",
    index: int = 0,
    entity_ids: Sequence[EntityId] = (),
) -> ChunkRecord:
    """A chunk starting at offset 0 of its document; the id defaults to its text."""
    return ChunkRecord(
        chunk_id=chunk_id or text,
        source_id=source_id,
        index=index,
        start=0,
        end=len(text),
        text=text,
        entity_ids=list(entity_ids),
    )


#: Queries that are FTS5 syntax, or try to be: each must be searched as plain words.
HOSTILE_QUERIES = (
    '"',
    '"unbalanced',
    "alpha AND",
    "OR alpha",
    "NOT alpha",
    "NEAR(alpha beta)",
    "alpha*",
    "^alpha",
    "-alpha",
    "text:alpha",
    "chunk_id:alpha",
    "{text}: alpha",
    "alpha'); DROP TABLE chunk_rows; --",
    "(((",
    "*",
    "+",
    "",
    "   ",
)


class ChunkStoreCompliance(TwoTenants):
    """Every `ChunkStore` adapter subclasses this and overrides the `store` fixture
    with a fresh, empty store."""

    @pytest.fixture
    def store(self) -> ChunkStore:
        raise NotImplementedError("override the `store` fixture with a fresh, empty store")

    async def test_scores_are_bm25_over_the_tenants_statistics(
        self, store: ChunkStore, tenant: TenantId
    ) -> None:
        """Catches: tf-idf or raw counts passed off as BM25, a wrong length norm, or a
        sign left lower-better. The expected number is written out from the formula."""
        await store.upsert(
            [
                chunk("apple banana", "a"),
                chunk("apple cherry cherry", "b"),
                chunk("banana date egg fig", "c"),
            ],
            tenant,
        )
        rows, average = 3, (2 + 3 + 4) / 3
        cherry_idf = math.log((rows - 1 + 0.5) / (1 + 0.5))
        expected = cherry_idf * 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 3 / average))
        [match] = await store.search("cherry", tenant)
        assert match.chunk.chunk_id == "b"
        assert match.score == pytest.approx(expected, rel=1e-6)

    async def test_a_rare_term_outweighs_a_common_one(
        self, store: ChunkStore, tenant: TenantId
    ) -> None:
        """Catches: a ranking by raw term count, which BM25's idf exists to correct."""
        common = [chunk(f"the river bank number {i}", f"c{i}") for i in range(8)]
        await store.upsert([*common, chunk("the the the zeppelin", "rare")], tenant)
        matches = await store.search("the zeppelin", tenant, k=3)
        assert matches[0].chunk.chunk_id == "rare"

    async def test_another_tenants_text_never_moves_a_score(
        self, store: ChunkStore, tenant: TenantId, other: TenantId
    ) -> None:
        """Catches: one index shared by all tenants, whose N and document frequencies
        mix every tenant's text into each tenant's scores."""
        await store.upsert([chunk("apple banana", "a"), chunk("cherry date", "b")], tenant)
        before = await store.search("apple", tenant)
        await store.upsert([chunk(f"apple apple {i}", f"x{i}") for i in range(20)], other)
        assert await store.search("apple", tenant) == before

    async def test_colliding_ids_across_tenants_never_cross(
        self, store: ChunkStore, tenant: TenantId, other: TenantId
    ) -> None:
        await store.upsert([chunk("apple pie", "same")], tenant)
        await store.upsert([chunk("banana bread", "same")], other)
        assert [m.chunk.text for m in await store.search("apple banana", tenant)] == ["apple pie"]
        assert [m.chunk.text for m in await store.search("apple banana", other)] == ["banana bread"]
        assert [c.text for c in await store.get(["same"], other)] == ["banana bread"]
        await store.delete(["same"], tenant)
        assert await store.count(tenant) == 0
        assert await store.count(other) == 1
        await store.upsert([chunk("apple pie", "same")], tenant)
        await store.delete_by_tenant(other)
        assert await store.count(other) == 0
        assert [m.chunk.chunk_id for m in await store.search("apple", tenant)] == ["same"]

    async def test_the_source_filter_applies_before_k(
        self, store: ChunkStore, tenant: TenantId
    ) -> None:
        """Twenty chunks of one document outscore three of another; the top 3 of the
        second must still be 3. Truncating to k and then filtering returns none."""
        loud = [chunk(f"alpha alpha alpha {i}", f"a{i}", "loud", i) for i in range(20)]
        quiet = [chunk(f"alpha and many other words {i}", f"q{i}", "quiet", i) for i in range(3)]
        await store.upsert([*loud, *quiet], tenant)
        matches = await store.search("alpha", tenant, k=3, source_ids=["quiet"])
        assert [m.chunk.chunk_id for m in matches] == ["q0", "q1", "q2"]
        assert await store.search("alpha", tenant, source_ids=[]) == []
        assert len(await store.search("alpha", tenant, k=50, source_ids=None)) == 23

    async def test_k_bounds_the_result_and_negative_k_raises(
        self, store: ChunkStore, tenant: TenantId
    ) -> None:
        await store.upsert([chunk(f"alpha {i}", f"a{i}") for i in range(10)], tenant)
        assert len(await store.search("alpha", tenant, k=4)) == 4
        assert await store.search("alpha", tenant, k=0) == []
        with pytest.raises(ValueError, match="k"):
            await store.search("alpha", tenant, k=-1)

    async def test_equal_scores_break_by_ascending_chunk_id(
        self, store: ChunkStore, tenant: TenantId
    ) -> None:
        """Forty identical chunks tie; the lowest ids go in mid-way, so only ordering
        every tied row by id before truncating returns them."""
        ids = [f"c{n:03d}" for n in range(40)]
        inserted = [*ids[20:], *ids[:3], *ids[3:20]]
        await store.upsert([chunk("same words here", i) for i in inserted], tenant)
        matches = await store.search("words", tenant, k=3)
        assert [m.chunk.chunk_id for m in matches] == ids[:3]

    async def test_upsert_is_idempotent_and_replaced_text_is_not_found(
        self, store: ChunkStore, tenant: TenantId
    ) -> None:
        """Catches: an index that adds the new text without removing the old, so a
        chunk keeps matching words it no longer holds (and counts them in N)."""
        first = chunk("apple pie", "one")
        await store.upsert([first, first], tenant)
        await store.upsert([first], tenant)
        assert await store.count(tenant) == 1
        assert len(await store.search("apple", tenant)) == 1
        await store.upsert([chunk("banana bread", "one")], tenant)
        assert await store.search("apple", tenant) == []
        [match] = await store.search("banana", tenant)
        assert match.chunk.text == "banana bread"
        assert await store.count(tenant) == 1

    async def test_delete_and_delete_source_remove_only_what_they_name(
        self, store: ChunkStore, tenant: TenantId
    ) -> None:
        await store.upsert(
            [
                chunk("alpha one", "a0", "a", 0),
                chunk("alpha two", "a1", "a", 1),
                chunk("alpha three", "b0", "b", 0),
                chunk("alpha four", "c0", "c", 0),
            ],
            tenant,
        )
        await store.delete(["c0", "missing"], tenant)
        await store.delete_source("a", tenant)
        assert [m.chunk.chunk_id for m in await store.search("alpha", tenant)] == ["b0"]
        assert await store.search("one two four", tenant) == []
        assert await store.count(tenant) == 1

    @pytest.mark.parametrize("query", HOSTILE_QUERIES)
    async def test_a_query_is_text_never_syntax(
        self, store: ChunkStore, tenant: TenantId, query: str
    ) -> None:
        """Catches: a query passed to FTS5 as a MATCH expression -- a stray quote is a
        syntax error, `NOT alpha` excludes what it names, `text:` picks a column."""
        await store.upsert([chunk("alpha beta", "ab"), chunk("gamma delta", "gd")], tenant)
        found = {m.chunk.chunk_id for m in await store.search(query, tenant)}
        assert found == ({"ab"} if "alpha" in query else set())
        assert await store.count(tenant) == 2

    async def test_operator_words_are_searched_as_words(
        self, store: ChunkStore, tenant: TenantId
    ) -> None:
        await store.upsert(
            [chunk("alpha beta", "ab"), chunk("gamma and not near or", "words")], tenant
        )
        for query in ("AND", "NOT", "NEAR", "OR", "not AND near"):
            assert [m.chunk.chunk_id for m in await store.search(query, tenant)] == ["words"]

    async def test_case_and_diacritics_fold(self, store: ChunkStore, tenant: TenantId) -> None:
        await store.upsert([chunk("Café Zürich", "cz")], tenant)
        assert len(await store.search("cafe ZURICH", tenant)) == 1

    async def test_get_keeps_the_order_asked_and_reads_are_copies(
        self, store: ChunkStore, tenant: TenantId
    ) -> None:
        entity = EntityId(uuid4())
        await store.upsert([chunk("alpha", "a"), chunk("beta", "b", entity_ids=[entity])], tenant)
        got = await store.get(["b", "nope", "a", "b"], tenant)
        assert [c.chunk_id for c in got] == ["b", "a"]
        assert got[0].entity_ids == [entity]
        got[0].entity_ids.append(EntityId(uuid4()))
        [match] = await store.search("beta", tenant)
        match.chunk.entity_ids.clear()
        [again] = await store.get(["b"], tenant)
        assert again.entity_ids == [entity]

    async def test_a_search_of_an_empty_tenant_is_empty(
        self, store: ChunkStore, tenant: TenantId
    ) -> None:
        assert await store.search("alpha", tenant) == []
        assert await store.get(["a"], tenant) == []
        await store.delete(["a"], tenant)
        await store.delete_source("doc", tenant)
        assert await store.count(tenant) == 0
