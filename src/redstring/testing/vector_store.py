"""The `VectorStore` compliance suite."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING
from uuid import UUID, uuid4

import pytest

from redstring.domain.exceptions import DimensionMismatchError
from redstring.domain.ids import EntityId, TenantId
from redstring.domain.vector import VectorRecord
from redstring.testing.factories import TwoTenants

if TYPE_CHECKING:
    from redstring.ports.vector_store import VectorStore

#: A realistic width: a check written with the wrong operator can pass at 8 and
#: reject everything real at 384.
DIMENSION = 384


def unit(index: int, dimension: int = DIMENSION) -> list[float]:
    vector = [0.0] * dimension
    vector[index] = 1.0
    return vector


def blend(weight: float, first: int = 0, second: int = 1) -> list[float]:
    """A unit vector at cosine `weight` to `unit(first)`."""
    vector = [0.0] * DIMENSION
    vector[first] = weight
    vector[second] = math.sqrt(max(0.0, 1.0 - weight * weight))
    return vector


def record(
    vector: list[float], entity_type: str = "person", entity_id: UUID | None = None
) -> VectorRecord:
    return VectorRecord(
        entity_id=EntityId(entity_id or uuid4()), vector=vector, entity_type=entity_type
    )


class VectorStoreCompliance(TwoTenants):
    """Every `VectorStore` adapter subclasses this and overrides the `store` fixture
    with an empty store of dimension `DIMENSION`."""

    @pytest.fixture
    def store(self) -> VectorStore:
        raise NotImplementedError("override the `store` fixture with a fresh, empty store")

    async def test_dimension_is_reported(self, store: VectorStore) -> None:
        assert store.dimension == DIMENSION

    async def test_results_are_best_first_on_the_stated_scale(
        self, store: VectorStore, tenant: TenantId
    ) -> None:
        same, orthogonal, opposite = record(unit(0)), record(unit(1)), record([-x for x in unit(0)])
        await store.upsert([orthogonal, opposite, same], tenant)
        matches = await store.search(unit(0), tenant, k=3)
        assert [m.entity_id for m in matches] == [
            same.entity_id,
            orthogonal.entity_id,
            opposite.entity_id,
        ]
        assert [m.score for m in matches] == pytest.approx([1.0, 0.5, 0.0], abs=1e-5)
        assert all(m.entity_type == "person" for m in matches)

    async def test_prepare_changes_no_answer(
        self, store: VectorStore, tenant: TenantId, other: TenantId
    ) -> None:
        """Catches: a prepare that drops, reorders or crosses tenants' vectors."""
        await store.prepare(tenant)  # an empty tenant has nothing to prepare
        await store.upsert([record(blend(w / 10)) for w in range(10)], tenant)
        before = await store.search(unit(0), tenant, k=5)
        await store.prepare(tenant)
        assert await store.search(unit(0), tenant, k=5) == before
        await store.prepare(other)
        assert await store.search(unit(0), other) == []

    async def test_k_bounds_the_result(self, store: VectorStore, tenant: TenantId) -> None:
        await store.upsert([record(blend(w / 10)) for w in range(10)], tenant)
        assert len(await store.search(unit(0), tenant, k=4)) == 4

    async def test_k_zero_is_empty_and_negative_k_raises(
        self, store: VectorStore, tenant: TenantId
    ) -> None:
        await store.upsert([record(unit(0))], tenant)
        assert await store.search(unit(0), tenant, k=0) == []
        with pytest.raises(ValueError, match="k"):
            await store.search(unit(0), tenant, k=-1)

    async def test_the_type_filter_applies_before_k(
        self, store: VectorStore, tenant: TenantId
    ) -> None:
        """Twenty organisations outscore three persons; top-3 persons must still be 3.
        Truncating to k and then filtering returns none -- the classic defect."""
        organisations = [record(blend(0.99 - i / 1000), "organization") for i in range(20)]
        persons = [record(blend(0.5 - i / 100), "person") for i in range(3)]
        await store.upsert([*organisations, *persons], tenant)
        matches = await store.search(unit(0), tenant, k=3, entity_types=["person"])
        assert [m.entity_id for m in matches] == [p.entity_id for p in persons]

    async def test_min_score_applies_before_k(self, store: VectorStore, tenant: TenantId) -> None:
        records = [record(blend(w)) for w in (0.9, 0.8, -0.5, -0.9)]
        await store.upsert(records, tenant)
        matches = await store.search(unit(0), tenant, k=10, min_score=0.6)
        assert [m.entity_id for m in matches] == [records[0].entity_id, records[1].entity_id]

    async def test_empty_types_match_nothing_and_none_is_no_filter(
        self, store: VectorStore, tenant: TenantId
    ) -> None:
        await store.upsert([record(unit(0), "person"), record(unit(0), "place")], tenant)
        assert await store.search(unit(0), tenant, entity_types=[]) == []
        assert len(await store.search(unit(0), tenant, entity_types=None)) == 2
        assert len(await store.search(unit(0), tenant, entity_types=["place", "nope"])) == 1

    async def test_equal_scores_break_by_ascending_id_string(
        self, store: VectorStore, tenant: TenantId
    ) -> None:
        ids = [UUID(f"00000000-0000-4000-8000-00000000000{c}") for c in "cab"]
        await store.upsert([record(unit(3), entity_id=i) for i in ids], tenant)
        matches = await store.search(unit(3), tenant, k=3)
        assert [str(m.entity_id) for m in matches] == sorted(str(i) for i in ids)

    async def test_ties_at_the_k_boundary_break_by_id_not_by_storage_order(
        self, store: VectorStore, tenant: TenantId
    ) -> None:
        """Forty rows tie for first and k is 3: an engine hands back equal distances in
        storage order, and an adapter that takes its first k as they come returns
        whichever ids were inserted first or last. The lowest ids go in mid-way, so
        only gathering every tied row before truncating returns them."""
        ids = [UUID(f"00000000-0000-4000-8000-{n:012d}") for n in range(40)]
        inserted = [*ids[20:], *ids[:3], *ids[3:20]]
        await store.upsert([record(unit(5), entity_id=i) for i in inserted], tenant)
        await store.upsert([record(blend(0.99, 5, 6))], tenant)
        matches = await store.search(unit(5), tenant, k=3)
        assert [m.entity_id for m in matches] == ids[:3]

    async def test_a_wrong_dimension_is_refused_and_nothing_stored(
        self, store: VectorStore, tenant: TenantId
    ) -> None:
        with pytest.raises(DimensionMismatchError):
            await store.upsert([record(unit(0)), record([1.0] * (DIMENSION - 1))], tenant)
        assert await store.count(tenant) == 0
        with pytest.raises(DimensionMismatchError):
            await store.search([1.0] * (DIMENSION + 1), tenant)

    async def test_colliding_ids_across_tenants_never_cross(
        self, store: VectorStore, tenant: TenantId, other: TenantId
    ) -> None:
        shared = uuid4()
        await store.upsert([record(unit(0), entity_id=shared)], tenant)
        await store.upsert([record(unit(1), "place", entity_id=shared)], other)
        mine = await store.search(unit(0), tenant)
        assert [(m.entity_id, m.entity_type) for m in mine] == [(shared, "person")]
        assert mine[0].score == pytest.approx(1.0, abs=1e-5)
        theirs = await store.search(unit(0), other)
        assert [(m.entity_id, m.entity_type) for m in theirs] == [(shared, "place")]
        assert theirs[0].score == pytest.approx(0.5, abs=1e-5)
        await store.delete_by_tenant(tenant)
        assert await store.count(tenant) == 0
        assert await store.count(other) == 1

    async def test_upsert_is_idempotent_and_replaces(
        self, store: VectorStore, tenant: TenantId
    ) -> None:
        first = record(unit(0))
        await store.upsert([first, first], tenant)
        await store.upsert([first], tenant)
        assert await store.count(tenant) == 1
        moved = record(unit(1), "place", entity_id=first.entity_id)
        await store.upsert([moved], tenant)
        [match] = await store.search(unit(1), tenant)
        assert match.entity_type == "place"
        assert match.score == pytest.approx(1.0, abs=1e-5)

    async def test_delete_removes_only_the_named_ids(
        self, store: VectorStore, tenant: TenantId
    ) -> None:
        kept, gone = record(unit(0)), record(unit(0))
        await store.upsert([kept, gone], tenant)
        await store.delete([gone.entity_id], tenant)
        assert [m.entity_id for m in await store.search(unit(0), tenant)] == [kept.entity_id]

    async def test_delete_in_a_tenant_without_vectors_leaves_another_tenants(
        self, store: VectorStore, tenant: TenantId, other: TenantId
    ) -> None:
        """A tenant holding no vector has nothing to delete (an adapter may skip the
        lookup), even of ids another tenant holds; that tenant's vectors stay."""
        theirs = record(unit(0))
        await store.upsert([theirs], other)
        await store.delete([theirs.entity_id], tenant)
        assert await store.count(tenant) == 0
        assert [m.entity_id for m in await store.search(unit(0), other)] == [theirs.entity_id]
        await store.delete([theirs.entity_id], other)
        assert await store.count(other) == 0

    async def test_missing_names_the_ids_without_a_vector_in_this_tenant_only(
        self, store: VectorStore, tenant: TenantId, other: TenantId
    ) -> None:
        held, gone, never, elsewhere = (record(unit(i)) for i in range(4))
        await store.upsert([held, gone], tenant)
        await store.upsert([elsewhere], other)
        await store.delete([gone.entity_id], tenant)
        asked = [never.entity_id, held.entity_id, gone.entity_id, elsewhere.entity_id]
        assert await store.missing([*asked, never.entity_id], tenant) == [
            never.entity_id,
            gone.entity_id,
            elsewhere.entity_id,
        ]
        assert await store.missing([], tenant) == []

    async def test_mutating_the_input_after_upsert_changes_nothing_stored(
        self, store: VectorStore, tenant: TenantId
    ) -> None:
        stored = record(unit(0))
        await store.upsert([stored], tenant)
        stored.vector[0] = -1.0
        [match] = await store.search(unit(0), tenant)
        assert match.score == pytest.approx(1.0, abs=1e-5)

    async def test_a_returned_match_is_a_copy(self, store: VectorStore, tenant: TenantId) -> None:
        await store.upsert([record(unit(0))], tenant)
        [match] = await store.search(unit(0), tenant)
        match.entity_type = "mutated"
        [again] = await store.search(unit(0), tenant)
        assert again.entity_type == "person"
