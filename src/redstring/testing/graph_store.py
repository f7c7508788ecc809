"""The `GraphStore` compliance suite."""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import uuid4

import pytest

from redstring.domain.exceptions import TenantMismatchError
from redstring.domain.ids import EntityId, TenantId
from redstring.testing.factories import TwoTenants, make_entity, make_relationship

if TYPE_CHECKING:
    from redstring.ports.graph_store import GraphStore


class GraphStoreCompliance(TwoTenants):
    """Every `GraphStore` adapter subclasses this and overrides the `store` fixture."""

    @pytest.fixture
    def store(self) -> GraphStore:
        raise NotImplementedError("override the `store` fixture with a fresh, empty store")

    # -- entities ------------------------------------------------------------------

    async def test_an_upserted_entity_reads_back_equal(
        self, store: GraphStore, tenant: TenantId
    ) -> None:
        entity = make_entity(tenant_id=tenant, properties={"born": 1815, "tags": ["math"]})
        await store.upsert_entities([entity], tenant)
        assert await store.get_entity(entity.id, tenant) == entity

    async def test_an_unknown_id_reads_as_none(self, store: GraphStore, tenant: TenantId) -> None:
        assert await store.get_entity(EntityId(uuid4()), tenant) is None

    async def test_get_entities_omits_missing_ids(
        self, store: GraphStore, tenant: TenantId
    ) -> None:
        first, second = make_entity(tenant_id=tenant), make_entity(tenant_id=tenant, name="Bo")
        await store.upsert_entities([first, second], tenant)
        found = await store.get_entities([second.id, EntityId(uuid4()), first.id], tenant)
        assert {entity.id for entity in found} == {first.id, second.id}
        assert len(found) == 2

    async def test_colliding_ids_across_tenants_never_cross(
        self, store: GraphStore, tenant: TenantId, other: TenantId
    ) -> None:
        """The composite-key case, forced: uuid4 ids never collide by chance, so a
        store keyed on `id` alone passes every natural test."""
        shared = EntityId(uuid4())
        mine = make_entity(tenant_id=tenant, entity_id=shared, name="Ada Lovelace")
        theirs = make_entity(tenant_id=other, entity_id=shared, name="Ada Lovelock")
        await store.upsert_entities([mine], tenant)
        await store.upsert_entities([theirs], other)
        assert await store.get_entity(shared, tenant) == mine
        assert await store.get_entity(shared, other) == theirs
        assert await store.get_entities([shared], tenant) == [mine]
        found = await store.find_by_blocking_keys(["p:ada "], tenant)
        assert found == {"p:ada ": [mine]}
        assert await store.list_entities(tenant) == [mine]
        assert await store.count_entities(other) == 1

    async def test_delete_by_tenant_leaves_other_tenants_alone(
        self, store: GraphStore, tenant: TenantId, other: TenantId
    ) -> None:
        shared = EntityId(uuid4())
        await store.upsert_entities([make_entity(tenant_id=tenant, entity_id=shared)], tenant)
        kept = make_entity(tenant_id=other, entity_id=shared)
        await store.upsert_entities([kept], other)
        await store.delete_by_tenant(tenant)
        assert await store.get_entity(shared, tenant) is None
        assert await store.get_entity(shared, other) == kept

    async def test_a_returned_entity_is_a_copy(self, store: GraphStore, tenant: TenantId) -> None:
        entity = make_entity(tenant_id=tenant, properties={"tags": ["a"]})
        await store.upsert_entities([entity], tenant)
        read = await store.get_entity(entity.id, tenant)
        assert read is not None
        read.name = "Mutated"
        tags = read.properties["tags"]
        assert isinstance(tags, list)
        tags.append("b")
        assert await store.get_entity(entity.id, tenant) == entity

    async def test_mutating_the_input_after_upsert_changes_nothing_stored(
        self, store: GraphStore, tenant: TenantId
    ) -> None:
        entity = make_entity(tenant_id=tenant, properties={"tags": ["a"]})
        expected = entity.model_copy(deep=True)
        await store.upsert_entities([entity], tenant)
        entity.name = "Mutated"
        entity.properties["tags"] = ["z"]
        assert await store.get_entity(entity.id, tenant) == expected

    async def test_upsert_is_idempotent_and_replaces(
        self, store: GraphStore, tenant: TenantId
    ) -> None:
        entity = make_entity(tenant_id=tenant, name="Ada Lovelace")
        await store.upsert_entities([entity], tenant)
        await store.upsert_entities([entity], tenant)
        assert await store.count_entities(tenant) == 1
        renamed = make_entity(tenant_id=tenant, entity_id=entity.id, name="Zed Zebra")
        await store.upsert_entities([renamed], tenant)
        assert await store.get_entity(entity.id, tenant) == renamed
        found = await store.find_by_blocking_keys(["p:ada ", "p:zed "], tenant)
        assert found["p:ada "] == []
        assert found["p:zed "] == [renamed]

    async def test_every_requested_key_is_present_in_the_result(
        self, store: GraphStore, tenant: TenantId
    ) -> None:
        entity = make_entity(tenant_id=tenant)
        await store.upsert_entities([entity], tenant)
        found = await store.find_by_blocking_keys(["p:ada ", "p:none", "s:Z999"], tenant)
        assert set(found) == {"p:ada ", "p:none", "s:Z999"}
        assert found["p:ada "] == [entity]
        assert found["p:none"] == []

    async def test_a_record_of_another_tenant_is_refused_and_nothing_written(
        self, store: GraphStore, tenant: TenantId, other: TenantId
    ) -> None:
        good = make_entity(tenant_id=tenant)
        stray = make_entity(tenant_id=other, name="Stray")
        with pytest.raises(TenantMismatchError):
            await store.upsert_entities([good, stray], tenant)
        assert await store.count_entities(tenant) == 0
        assert await store.count_entities(other) == 0

    async def test_list_entities_is_ordered_by_id_string_and_filters_types(
        self, store: GraphStore, tenant: TenantId
    ) -> None:
        entities = [make_entity(tenant_id=tenant, name=f"N{i}") for i in range(5)]
        org = make_entity(tenant_id=tenant, name="Acme", entity_type="organization")
        await store.upsert_entities([*entities, org], tenant)
        listed = await store.list_entities(tenant)
        assert [str(e.id) for e in listed] == sorted(str(e.id) for e in [*entities, org])
        assert await store.list_entities(tenant, entity_types=["organization"]) == [org]
        assert await store.list_entities(tenant, entity_types=[]) == []

    # -- lexical candidates --------------------------------------------------------------

    async def test_lexical_candidates_never_cross_tenants_with_colliding_ids(
        self, store: GraphStore, tenant: TenantId, other: TenantId
    ) -> None:
        shared = EntityId(uuid4())
        mine = make_entity(tenant_id=tenant, entity_id=shared, name="Ada Lovelace")
        theirs = make_entity(tenant_id=other, entity_id=shared, name="Ada Lovelock")
        await store.upsert_entities([mine], tenant)
        await store.upsert_entities([theirs], other)
        found = await store.lexical_candidates(["w:ada", "w:love"], tenant, limit=10)
        assert [(c.entity_id, c.names) for c in found] == [(shared, ("ada lovelace",))]

    async def test_lexical_candidates_are_each_once_ordered_by_id_with_their_type(
        self, store: GraphStore, tenant: TenantId
    ) -> None:
        """Filed under two of the asked keys, an entity is still one candidate."""
        ada = make_entity(tenant_id=tenant, name="Ada Lovelace", entity_type="person")
        org = make_entity(tenant_id=tenant, name="Lovelace Ltd", entity_type="organization")
        await store.upsert_entities([ada, org], tenant)
        found = await store.lexical_candidates(["w:ada", "w:love", "w:none"], tenant, limit=10)
        expected = sorted([ada, org], key=lambda entity: str(entity.id))
        assert [c.entity_id for c in found] == [entity.id for entity in expected]
        assert {c.entity_id: c.entity_type for c in found} == {
            ada.id: "person",
            org.id: "organization",
        }

    async def test_lexical_candidates_follow_renames_and_deletes(
        self, store: GraphStore, tenant: TenantId
    ) -> None:
        entity = make_entity(tenant_id=tenant, name="Ada Lovelace")
        gone = make_entity(tenant_id=tenant, name="Ada Byron")
        await store.upsert_entities([entity, gone], tenant)
        renamed = make_entity(tenant_id=tenant, entity_id=entity.id, name="Zed Zebra")
        await store.upsert_entities([renamed], tenant)
        await store.delete_entities([gone.id], tenant)
        assert await store.lexical_candidates(["w:ada", "w:love"], tenant, limit=10) == []
        [found] = await store.lexical_candidates(["w:zebr"], tenant, limit=10)
        assert found.names == ("zed zebra",)

    async def test_lexical_candidates_stay_within_the_limit(
        self, store: GraphStore, tenant: TenantId
    ) -> None:
        """A common token's block is skipped for a rarer one that fits; when none fits,
        the rarest is read up to the limit, never beyond it."""
        common = [make_entity(tenant_id=tenant, name=f"John Doe{i:02d}") for i in range(6)]
        rare = make_entity(tenant_id=tenant, name="John Quixote")
        await store.upsert_entities([*common, rare], tenant)
        found = await store.lexical_candidates(["w:john", "w:quix"], tenant, limit=3)
        assert [c.entity_id for c in found] == [rare.id]
        partial = await store.lexical_candidates(["w:john"], tenant, limit=3)
        everyone = sorted([*common, rare], key=lambda entity: str(entity.id))
        assert [c.entity_id for c in partial] == [entity.id for entity in everyone[:3]]
        assert await store.lexical_candidates(["w:john"], tenant, limit=0) == []

    async def test_delete_by_tenant_empties_the_lexicon(
        self, store: GraphStore, tenant: TenantId, other: TenantId
    ) -> None:
        await store.upsert_entities([make_entity(tenant_id=tenant, name="Ada Lovelace")], tenant)
        kept = make_entity(tenant_id=other, name="Ada Lovelace")
        await store.upsert_entities([kept], other)
        await store.delete_by_tenant(tenant)
        assert await store.lexical_candidates(["w:ada"], tenant, limit=10) == []
        assert [
            c.entity_id for c in await store.lexical_candidates(["w:ada"], other, limit=10)
        ] == [kept.id]

    # -- relationships ---------------------------------------------------------------

    async def test_relationships_are_found_from_either_end(
        self, store: GraphStore, tenant: TenantId
    ) -> None:
        ada, charles, other_person = (
            make_entity(tenant_id=tenant, name="Ada"),
            make_entity(tenant_id=tenant, name="Charles"),
            make_entity(tenant_id=tenant, name="Mary"),
        )
        await store.upsert_entities([ada, charles, other_person], tenant)
        edge = make_relationship(ada, charles)
        await store.upsert_relationships([edge, edge], tenant)
        assert await store.relationships(ada.id, tenant) == [edge]
        assert await store.relationships(charles.id, tenant) == [edge]
        assert await store.relationships(other_person.id, tenant) == []
        assert await store.neighbours(charles.id, tenant) == [ada]
        assert await store.list_relationships(tenant) == [edge]

    async def test_relationships_many_is_relationships_of_each_at_once(
        self, store: GraphStore, tenant: TenantId, other: TenantId
    ) -> None:
        """Catches a batch read that misses an end, an alias, or repeats an edge two
        asked entities share, or reaches into another tenant."""
        a, b, c, d, e = (make_entity(tenant_id=tenant, name=n) for n in "ABCDE")
        await store.upsert_entities([a, b, c, d, e], tenant)
        edges = [make_relationship(a, b), make_relationship(c, a), make_relationship(d, e)]
        await store.upsert_relationships(edges, tenant)
        merged_away = make_entity(tenant_id=tenant, name="Old C").id
        await store.set_alias(merged_away, c.id, tenant)
        theirs = make_entity(tenant_id=other, name="A")
        await store.upsert_entities([theirs], other)
        await store.upsert_relationships(
            [make_relationship(theirs, make_entity(tenant_id=other, name="Z"))], other
        )
        for asked in ([a.id], [b.id, a.id], [merged_away, e.id], [a.id, b.id, c.id, d.id]):
            each = {r.id: r for x in asked for r in await store.relationships(x, tenant)}
            expected = sorted(each.values(), key=lambda r: str(r.id))
            assert await store.relationships_many(asked, tenant) == expected
        assert len(await store.relationships_many([a.id, b.id, c.id, d.id], tenant)) == 3
        assert await store.relationships_many([], tenant) == []
        assert await store.relationships_many([theirs.id], tenant) == []

    async def test_colliding_relationship_ids_across_tenants_never_cross(
        self, store: GraphStore, tenant: TenantId, other: TenantId
    ) -> None:
        a1, b1 = make_entity(tenant_id=tenant, name="A"), make_entity(tenant_id=tenant, name="B")
        a2, b2 = make_entity(tenant_id=other, name="A"), make_entity(tenant_id=other, name="B")
        await store.upsert_entities([a1, b1], tenant)
        await store.upsert_entities([a2, b2], other)
        mine = make_relationship(a1, b1, relationship_type="knows")
        theirs = make_relationship(a2, b2, relationship_type="hates", relationship_id=mine.id)
        await store.upsert_relationships([mine], tenant)
        await store.upsert_relationships([theirs], other)
        assert await store.list_relationships(tenant) == [mine]
        assert await store.list_relationships(other) == [theirs]

    async def test_deleting_an_entity_removes_the_relationships_touching_it(
        self, store: GraphStore, tenant: TenantId
    ) -> None:
        ada, charles = make_entity(tenant_id=tenant, name="Ada"), make_entity(tenant_id=tenant)
        await store.upsert_entities([ada, charles], tenant)
        await store.upsert_relationships([make_relationship(ada, charles)], tenant)
        await store.delete_entities([ada.id], tenant)
        assert await store.get_entity(ada.id, tenant) is None
        assert await store.relationships(charles.id, tenant) == []

    async def test_delete_relationships_removes_only_the_named_ones(
        self, store: GraphStore, tenant: TenantId
    ) -> None:
        ada, charles = make_entity(tenant_id=tenant, name="Ada"), make_entity(tenant_id=tenant)
        first = make_relationship(ada, charles, relationship_type="knows")
        second = make_relationship(charles, ada, relationship_type="admires")
        await store.upsert_entities([ada, charles], tenant)
        await store.upsert_relationships([first, second], tenant)
        await store.delete_relationships([first.id], tenant)
        assert await store.list_relationships(tenant) == [second]

    async def test_a_relationship_of_another_tenant_is_refused(
        self, store: GraphStore, tenant: TenantId, other: TenantId
    ) -> None:
        a, b = make_entity(tenant_id=other, name="A"), make_entity(tenant_id=other, name="B")
        with pytest.raises(TenantMismatchError):
            await store.upsert_relationships([make_relationship(a, b)], tenant)
        assert await store.list_relationships(tenant) == []

    # -- aliases ---------------------------------------------------------------------

    async def test_an_alias_reads_as_its_canonical(
        self, store: GraphStore, tenant: TenantId
    ) -> None:
        canonical = make_entity(tenant_id=tenant, name="Ada Lovelace")
        merged_away = EntityId(uuid4())
        await store.upsert_entities([canonical], tenant)
        await store.set_alias(merged_away, canonical.id, tenant)
        assert await store.resolve(merged_away, tenant) == canonical.id
        assert await store.get_entity(merged_away, tenant) == canonical
        both = await store.get_entities([merged_away, canonical.id], tenant)
        assert both == [canonical]
        # Alone, so an adapter that skips alias resolution in the batch read cannot pass
        # by finding the canonical under its own id.
        assert await store.get_entities([merged_away], tenant) == [canonical]
        await store.remove_alias(merged_away, tenant)
        assert await store.get_entity(merged_away, tenant) is None
        assert await store.resolve(merged_away, tenant) == merged_away

    async def test_an_alias_chain_resolves_to_the_end(
        self, store: GraphStore, tenant: TenantId
    ) -> None:
        first, second = EntityId(uuid4()), EntityId(uuid4())
        final = make_entity(tenant_id=tenant)
        await store.upsert_entities([final], tenant)
        await store.set_alias(first, second, tenant)
        await store.set_alias(second, final.id, tenant)
        assert await store.resolve(first, tenant) == final.id

    async def test_an_alias_to_an_alias_points_at_the_canonical(
        self, store: GraphStore, tenant: TenantId
    ) -> None:
        """The chain built the other way round: the target is resolved before it is
        stored, so reads stay one hop. Storing the target as given leaves `first`
        resolving to `second`, which is no entity."""
        first, second = EntityId(uuid4()), EntityId(uuid4())
        final = make_entity(tenant_id=tenant)
        await store.upsert_entities([final], tenant)
        await store.set_alias(second, final.id, tenant)
        await store.set_alias(first, second, tenant)
        assert await store.resolve(first, tenant) == final.id
        assert await store.get_entity(first, tenant) == final

    async def test_aliases_are_per_tenant(
        self, store: GraphStore, tenant: TenantId, other: TenantId
    ) -> None:
        shared_alias = EntityId(uuid4())
        mine, theirs = make_entity(tenant_id=tenant), make_entity(tenant_id=other)
        await store.upsert_entities([mine], tenant)
        await store.upsert_entities([theirs], other)
        await store.set_alias(shared_alias, mine.id, tenant)
        assert await store.get_entity(shared_alias, other) is None
        assert await store.resolve(shared_alias, other) == shared_alias

    async def test_relationships_of_an_alias_are_those_of_its_canonical(
        self, store: GraphStore, tenant: TenantId
    ) -> None:
        ada, charles = make_entity(tenant_id=tenant, name="Ada"), make_entity(tenant_id=tenant)
        await store.upsert_entities([ada, charles], tenant)
        edge = make_relationship(ada, charles)
        await store.upsert_relationships([edge], tenant)
        alias = EntityId(uuid4())
        await store.set_alias(alias, ada.id, tenant)
        assert await store.relationships(alias, tenant) == [edge]
        assert await store.neighbours(alias, tenant) == [charles]

    async def test_set_aliases_equals_set_alias_one_pair_at_a_time(
        self, store: GraphStore, tenant: TenantId, other: TenantId
    ) -> None:
        """A batch that re-aliases an earlier target, aliases a stored alias's target,
        and points at an alias set earlier in the same batch: every id resolves as
        the pairs applied one by one would make it, and the other tenant is untouched."""
        ids = [EntityId(uuid4()) for _ in range(6)]
        a, b, c, d, e, f = ids
        final = make_entity(tenant_id=tenant)
        await store.upsert_entities([final], tenant)
        await store.set_alias(a, b, tenant)  # stored before the batch: a -> b
        await store.set_alias(a, b, other)
        await store.set_aliases([(b, c), (d, b), (c, final.id), (e, d), (f, a)], tenant)
        for alias in (a, b, c, d, e, f):
            assert await store.resolve(alias, tenant) == final.id, alias
            assert await store.get_entity(alias, tenant) == final
        assert await store.resolve(a, other) == b
        assert await store.resolve(b, other) == b

    async def test_set_aliases_keeps_every_alias_one_hop_from_its_canonical(
        self, store: GraphStore, tenant: TenantId, other: TenantId
    ) -> None:
        """A batch of plain aliases (none repeated, none another's canonical, as a
        consolidation's merges set them): a stored alias of a new alias is redirected
        to the new target, and a new alias of a stored alias points past it -- so
        removing the middle alias (undoing its merge) strands neither. Catches the
        redirect skipped, or a target taken without resolving it."""
        a, b, c, x, y = (EntityId(uuid4()) for _ in range(5))
        final, other_final = make_entity(tenant_id=tenant), make_entity(tenant_id=tenant)
        await store.upsert_entities([final, other_final], tenant)
        await store.set_alias(a, b, tenant)  # a -> b, then b becomes an alias
        await store.set_alias(a, b, other)
        await store.set_alias(c, other_final.id, tenant)  # y is aliased to c below
        await store.set_aliases([(b, final.id), (x, final.id), (y, c)], tenant)
        await store.remove_alias(b, tenant)
        await store.remove_alias(c, tenant)
        assert await store.resolve(a, tenant) == final.id
        assert await store.resolve(y, tenant) == other_final.id
        assert await store.resolve(x, tenant) == final.id
        assert await store.resolve(a, other) == b

    async def test_resolve_many_answers_as_resolve_does_for_each_id(
        self, store: GraphStore, tenant: TenantId, other: TenantId
    ) -> None:
        """Chains (built either way round) end at the final canonical; a live id, an
        unknown id and an id aliased only in another tenant resolve to themselves;
        a repeated id is one key. The other tenant's canonical must never leak in."""
        first, second, third = (EntityId(uuid4()) for _ in range(3))
        final, live = make_entity(tenant_id=tenant), make_entity(tenant_id=tenant, name="Bo")
        theirs = make_entity(tenant_id=other)
        foreign, unknown = EntityId(uuid4()), EntityId(uuid4())
        await store.upsert_entities([final, live], tenant)
        await store.upsert_entities([theirs], other)
        await store.set_alias(first, second, tenant)
        await store.set_alias(second, final.id, tenant)
        await store.set_alias(third, first, tenant)
        await store.set_alias(foreign, theirs.id, other)
        await store.set_alias(live.id, theirs.id, other)
        asked = [first, live.id, second, foreign, third, unknown, first, final.id]
        resolved = await store.resolve_many(asked, tenant)
        assert resolved == {
            first: final.id,
            second: final.id,
            third: final.id,
            final.id: final.id,
            live.id: live.id,
            foreign: foreign,
            unknown: unknown,
        }
        assert resolved == {asked_id: await store.resolve(asked_id, tenant) for asked_id in asked}
        assert await store.resolve_many([foreign, live.id], other) == {
            foreign: theirs.id,
            live.id: theirs.id,
        }
        assert await store.resolve_many([], tenant) == {}

    async def test_set_aliases_refuses_a_cycle_and_writes_nothing(
        self, store: GraphStore, tenant: TenantId
    ) -> None:
        first, second, third = (EntityId(uuid4()) for _ in range(3))
        with pytest.raises(ValueError, match="cycle"):
            await store.set_aliases([(third, second), (first, second), (second, first)], tenant)
        for entity_id in (first, second, third):
            assert await store.resolve(entity_id, tenant) == entity_id
