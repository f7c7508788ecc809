"""Consolidator: resolution decisions become reversible merge events."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import uuid4

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redstring.composition.consolidation import Consolidator
from redstring.composition.records import RecordMapping, import_records
from redstring.composition.retrieval import Retriever
from redstring.composition.workspace import Workspace
from redstring.consolidation.engine import MergeDecision, ResolutionPlan
from redstring.domain.exceptions import ConcurrencyError, NotFoundError
from redstring.domain.ids import TenantId
from redstring.domain.retrieval import RetrievalMode
from redstring.embeddings.fake import FakeEmbeddingProvider
from redstring.events.base import decode
from redstring.events.merge import EntitiesMerged
from redstring.testing.factories import make_relationship

NOW = datetime(2026, 1, 1, tzinfo=UTC)
PEOPLE = [
    {"id": "1", "name": "Ada Lovelace", "dob": "1815-12-10", "birth_place": "london"},
    {"id": "2", "name": "Ada Lovelace", "dob": "1815-12-10", "birth_place": "london"},
    {"id": "3", "name": "Charles Babbage", "dob": "1791-12-26", "birth_place": "london"},
]
MAPPING = RecordMapping(name_field="name", entity_type="person", id_field="id")


async def fill(workspace: Workspace, tenant: TenantId, rows: list[dict[str, str]]) -> None:
    await import_records(
        rows,
        workspace=workspace,
        tenant_id=tenant,
        source_id="people.csv",
        mapping=MAPPING,
        observed_at=NOW,
        embeddings=FakeEmbeddingProvider(dimension=384),
    )


async def snapshot(workspace: Workspace, tenant: TenantId) -> tuple[object, object]:
    return (
        await workspace.graph.list_entities(tenant),
        await workspace.graph.list_relationships(tenant),
    )


async def test_duplicates_merge_and_their_ids_become_aliases() -> None:
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    await fill(workspace, tenant, PEOPLE)
    ids = {e.name: e.id for e in await workspace.graph.list_entities(tenant)}
    report = await Consolidator(workspace).consolidate(tenant)
    assert (report.merges, report.merged_entities) == (1, 1)
    assert report.bands.get("merge", 0) >= 1
    live = await workspace.graph.list_entities(tenant)
    assert sorted(e.name for e in live) == ["Ada Lovelace", "Charles Babbage"]
    [ada] = [e for e in live if e.name == "Ada Lovelace"]
    everyone = await workspace.graph.get_entities(list(ids.values()), tenant)
    assert len(everyone) == 2
    assert {p.source_id for p in ada.provenance} == {"people.csv#1", "people.csv#2"}


async def test_retrieval_returns_the_canonical_once_after_a_merge() -> None:
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    await fill(workspace, tenant, PEOPLE)
    await Consolidator(workspace).consolidate(tenant)
    embeddings = FakeEmbeddingProvider(dimension=384)
    retriever = Retriever(embeddings=embeddings, vectors=workspace.vectors, graph=workspace.graph)
    for mode in RetrievalMode:
        result = await retriever.retrieve("Ada Lovelace", tenant, mode=mode)
        names = [m.entity.name for m in result.matches]
        assert names.count("Ada Lovelace") == 1, mode


async def test_edges_are_redirected_and_a_self_loop_is_dropped() -> None:
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    await fill(workspace, tenant, PEOPLE)
    by_id = {e.id: e for e in await workspace.graph.list_entities(tenant)}
    ada_a, ada_b = [e for e in by_id.values() if e.name == "Ada Lovelace"]
    charles = next(e for e in by_id.values() if e.name == "Charles Babbage")
    await workspace.graph.upsert_relationships(
        [
            make_relationship(ada_a, ada_b, relationship_type="same_as"),
            make_relationship(ada_b, charles, relationship_type="knows"),
        ],
        tenant,
    )
    await Consolidator(workspace).consolidate(tenant)
    [edge] = await workspace.graph.list_relationships(tenant)
    assert edge.relationship_type == "knows"
    assert edge.target_id == charles.id
    assert edge.source_id in (ada_a.id, ada_b.id)
    assert await workspace.graph.get_entity(edge.source_id, tenant) is not None


async def test_an_edge_logged_between_planning_and_merging_is_redirected(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Catches the merges of a tenant that had no edge when planned skipping the
    edge read although another writer logged one since: the edge of a merged record
    would be deleted with it, not moved to the merged entity."""
    from redstring.composition import consolidation as module
    from redstring.events.ingest import ChunkStats, DocumentExtracted
    from redstring.events.streams import document_stream

    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    await fill(workspace, tenant, PEOPLE)
    plan_for = module.resolve

    async def resolve_while_another_writer_links(*args: object, **kwargs: object) -> object:
        plan = await plan_for(*args, **kwargs)  # type: ignore[arg-type]
        entities = await workspace.graph.list_entities(tenant)
        adas = [e for e in entities if e.name == "Ada Lovelace"]
        charles = next(e for e in entities if e.name == "Charles Babbage")
        event = DocumentExtracted(
            tenant_id=tenant,
            source_id="letters.txt",
            content_hash="h",
            model="test",
            entities=[adas[1], charles],
            relationships=[make_relationship(adas[1], charles, relationship_type="knows")],
            chunks=ChunkStats(chunk_count=1, char_count=10),
        )
        await workspace.append(document_stream(tenant, "letters.txt"), [event], expected_version=0)
        await workspace.catch_up()
        return plan

    monkeypatch.setattr(module, "resolve", resolve_while_another_writer_links)
    report = await Consolidator(workspace).consolidate(tenant)
    assert report.merges == 1
    [edge] = await workspace.graph.list_relationships(tenant)
    assert edge.relationship_type == "knows"
    assert await workspace.graph.get_entity(edge.source_id, tenant) is not None


async def test_undo_restores_the_graph_exactly_and_only_once() -> None:
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    await fill(workspace, tenant, PEOPLE)
    before = await snapshot(workspace, tenant)
    consolidator = Consolidator(workspace)
    report = await consolidator.consolidate(tenant)
    [merge_id] = report.merge_ids
    await consolidator.undo(merge_id, tenant)
    assert await snapshot(workspace, tenant) == before
    with pytest.raises(ConcurrencyError):
        await consolidator.undo(merge_id, tenant)
    with pytest.raises(NotFoundError):
        await consolidator.undo(uuid4(), tenant)


async def test_an_undone_merge_is_not_made_again() -> None:
    """Catches a consolidate that re-merges what a user undid: the undo is the
    user's "not the same", and it holds for every later run (full or incremental)."""
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    await fill(workspace, tenant, PEOPLE)
    consolidator = Consolidator(workspace)
    [merge_id] = (await consolidator.consolidate(tenant)).merge_ids
    await consolidator.undo(merge_id, tenant)
    [separated] = await consolidator.undone(tenant)
    assert len(separated) >= 2
    again = await consolidator.consolidate(tenant)
    assert again.merges == 0
    again_new = await consolidator.consolidate_new(tenant, sorted(separated, key=str))
    assert again_new.merges == 0
    assert await consolidator.undone(TenantId(uuid4())) == []


async def test_no_merge_crosses_tenants() -> None:
    workspace = Workspace.memory(dimension=384)
    mine, theirs = TenantId(uuid4()), TenantId(uuid4())
    await fill(workspace, mine, PEOPLE)
    await fill(workspace, theirs, PEOPLE)
    untouched = await snapshot(workspace, theirs)
    await Consolidator(workspace).consolidate(mine)
    assert await snapshot(workspace, theirs) == untouched
    assert await workspace.graph.count_entities(mine) == 2


async def test_replay_after_merges_and_undo_equals_the_live_stores() -> None:
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    await fill(workspace, tenant, PEOPLE)
    await Consolidator(workspace).consolidate(tenant)
    live = await snapshot(workspace, tenant)
    vectors = await workspace.vectors.count(tenant)
    await workspace.replay()
    assert await snapshot(workspace, tenant) == live
    assert await workspace.vectors.count(tenant) == vectors


async def test_consolidating_twice_merges_nothing_more() -> None:
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    await fill(workspace, tenant, PEOPLE)
    await Consolidator(workspace).consolidate(tenant)
    again = await Consolidator(workspace).consolidate(tenant)
    assert again.merges == 0


async def test_incremental_consolidation_merges_a_new_duplicate_into_the_stored_one() -> None:
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    await fill(workspace, tenant, PEOPLE[:1] + PEOPLE[2:])
    stored = {e.id for e in await workspace.graph.list_entities(tenant)}
    await fill(workspace, tenant, PEOPLE[1:2])
    new = [e.id for e in await workspace.graph.list_entities(tenant) if e.id not in stored]
    report = await Consolidator(workspace).consolidate_new(tenant, new)
    assert report.merges == 1
    assert await workspace.graph.count_entities(tenant) == 2


NAMES = ["Ada Lovelace", "Ada Lovelace", "Charles Babbage", "Charles Babbage", "Mary Somerville"]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    picks=st.lists(st.sampled_from(NAMES), min_size=2, max_size=6),
    edges=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=6),
)
async def test_undoing_every_merge_newest_first_restores_any_graph(
    picks: list[str], edges: list[tuple[int, int]]
) -> None:
    """Property: whatever duplicates and edges, consolidate then undo all = the start;
    and a second tenant holding the same records is never touched at any step."""
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    bystander = TenantId(uuid4())
    rows = [{"id": str(i), "name": name, "dob": "1815"} for i, name in enumerate(picks)]
    await fill(workspace, tenant, rows)
    await fill(workspace, bystander, rows)
    untouched = await snapshot(workspace, bystander)
    entities = await workspace.graph.list_entities(tenant)
    await workspace.graph.upsert_relationships(
        [
            make_relationship(entities[a], entities[b], relationship_type=f"r{a}{b}")
            for a, b in edges
            if a < len(entities) and b < len(entities) and a != b
        ],
        tenant,
    )
    before = await snapshot(workspace, tenant)
    consolidator = Consolidator(workspace)
    report = await consolidator.consolidate(tenant)
    assert await snapshot(workspace, bystander) == untouched
    for merge_id in reversed(report.merge_ids):
        await consolidator.undo(merge_id, tenant)
    assert await snapshot(workspace, tenant) == before
    assert await snapshot(workspace, bystander) == untouched


async def test_incremental_consolidation_finds_a_duplicate_under_the_extra_key_families() -> None:
    """ "Lovelace, Ada" shares no prefix or soundex key with "Ada Lovelace"; only the
    resolution families (here the date-of-birth key) bring them together, so the
    store must have filed the stored entity under them at ingestion."""
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    await fill(workspace, tenant, [{"id": "1", "name": "Ada Lovelace", "dob": "1815-12-10"}])
    stored = {e.id for e in await workspace.graph.list_entities(tenant)}
    await fill(workspace, tenant, [{"id": "2", "name": "Lovelace, Ada", "dob": "1815-12-10"}])
    new = [e.id for e in await workspace.graph.list_entities(tenant) if e.id not in stored]
    report = await Consolidator(workspace).consolidate_new(tenant, new)
    assert report.merges == 1


async def test_the_trained_model_is_logged_and_incremental_runs_reuse_it() -> None:
    """Catches a model that is not an event (nothing to reuse or audit), and an
    incremental run that retrains instead of scoring with the logged model; the
    event must not disturb a replay."""
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    await fill(workspace, tenant, PEOPLE[:1] + PEOPLE[2:])
    consolidator = Consolidator(workspace)
    first = await consolidator.consolidate(tenant)
    assert (first.models_trained, first.models_reused) == (["person"], [])
    [logged] = (await consolidator.logged_models(tenant, ["person"])).values()
    assert logged.trained_on == 2
    assert [str(f["name"]).removeprefix("@") for f in logged.fields] == list(first.fields["person"])
    stored = {e.id for e in await workspace.graph.list_entities(tenant)}
    await fill(workspace, tenant, PEOPLE[1:2])
    new = [e.id for e in await workspace.graph.list_entities(tenant) if e.id not in stored]
    second = await consolidator.consolidate_new(tenant, new)
    assert (second.models_trained, second.models_reused) == ([], ["person"])
    assert second.merges == 1
    live = await snapshot(workspace, tenant)
    await workspace.replay()
    assert await snapshot(workspace, tenant) == live
    other = TenantId(uuid4())
    assert await consolidator.logged_models(other, ["person"]) == {}


async def test_an_edge_between_two_clusters_of_one_batch_joins_their_canonicals() -> None:
    """Both merges are folded by one catch-up: the second snapshot must see the edge
    the first redirected. Catches a snapshot read from the stale store, which leaves
    the edge on a merged-away id (or drops it) and undo restoring something else."""
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    rows = [*PEOPLE, {**PEOPLE[2], "id": "4"}]
    await fill(workspace, tenant, rows)
    entities = await workspace.graph.list_entities(tenant)
    adas = [e for e in entities if e.name == "Ada Lovelace"]
    charleses = [e for e in entities if e.name == "Charles Babbage"]
    await workspace.graph.upsert_relationships(
        [make_relationship(a, c) for a in adas for c in charleses], tenant
    )
    before = await snapshot(workspace, tenant)
    consolidator = Consolidator(workspace)
    report = await consolidator.consolidate(tenant)
    assert report.merges == 2
    live = {e.id for e in await workspace.graph.list_entities(tenant)}
    [edge] = await workspace.graph.list_relationships(tenant)
    assert {edge.source_id, edge.target_id} == live
    for merge_id in reversed(report.merge_ids):
        await consolidator.undo(merge_id, tenant)
    assert await snapshot(workspace, tenant) == before


async def test_a_merged_entity_is_made_of_its_records_through_merges_of_merges() -> None:
    """Catches a later run reading a merged entity's records from only its newest
    merge (losing those an earlier merge folded in), or from an undone merge."""
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    consolidator = Consolidator(workspace)
    for row in [*PEOPLE, {**PEOPLE[0], "id": "4"}]:
        await fill(workspace, tenant, [row])
        await consolidator.consolidate(tenant)
    made_of = await consolidator.made_of(tenant)
    [(ada, records)] = made_of.items()
    assert len(records) == 3
    assert {e.name for e in records} == {"Ada Lovelace"}
    assert len({e.id for e in records}) == 3
    newest = (await workspace.log.read_type("EntitiesMerged", tenant))[-1]
    merge = decode(newest)
    assert isinstance(merge, EntitiesMerged)
    await consolidator.undo(merge.merge_id, tenant)
    [(_, records)] = (await consolidator.made_of(tenant)).items()
    assert len(records) == 2
    assert ada in {e.id for e in records}


async def test_a_merge_sharing_an_entity_with_an_earlier_one_snapshots_it_merged() -> None:
    """A plan's merges never share an entity, but one that does is written over the
    earlier merge folded: catches a snapshot read once per batch and not again, whose
    undo would restore the entity as it was before the first merge."""
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    await fill(workspace, tenant, [*PEOPLE, {**PEOPLE[0], "id": "4"}])
    entities = await workspace.graph.list_entities(tenant)
    adas = [e for e in entities if e.name == "Ada Lovelace"]
    charles = next(e for e in entities if e.name == "Charles Babbage")
    await workspace.graph.upsert_relationships([make_relationship(adas[1], charles)], tenant)
    first = adas[0].model_copy(update={"properties": {**adas[0].properties, "seen": 1}})
    second = first.model_copy(update={"properties": {**first.properties, "seen": 2}})
    plan = ResolutionPlan(
        merges=[
            MergeDecision(first.id, (adas[1].id,), "test", {}, first),
            MergeDecision(first.id, (adas[2].id,), "test", {}, second),
        ]
    )
    consolidator = Consolidator(workspace)
    seen = await workspace.log.last_position()
    report = await consolidator._apply(tenant, entities, plan, None, seen)
    [_, merged_twice] = report.merge_ids
    await consolidator.undo(merged_twice, tenant)
    assert await workspace.graph.get_entity(first.id, tenant) == first
    [edge] = await workspace.graph.list_relationships(tenant)
    assert {edge.source_id, edge.target_id} == {first.id, charles.id}


async def test_a_write_between_planning_and_merging_is_in_the_merge_snapshot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Catches before-snapshots taken from the entities the plan read while another
    writer changed one of them meanwhile: undoing the merge would then restore the
    entity without that writer's change."""
    from redstring.composition import consolidation as module

    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    await fill(workspace, tenant, PEOPLE)
    plan_for = module.resolve

    async def resolve_while_another_writer_writes(*args: object, **kwargs: object) -> object:
        plan = await plan_for(*args, **kwargs)  # type: ignore[arg-type]
        await fill(workspace, tenant, [{**PEOPLE[0], "note": "written while planning"}])
        return plan

    monkeypatch.setattr(module, "resolve", resolve_while_another_writer_writes)
    consolidator = Consolidator(workspace)
    report = await consolidator.consolidate(tenant)
    [merge_id] = report.merge_ids
    await consolidator.undo(merge_id, tenant)
    notes = [e.properties.get("note") for e in await workspace.graph.list_entities(tenant)]
    assert "written while planning" in notes
