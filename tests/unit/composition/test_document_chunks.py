"""Chunks are a projection of the log, and a changed document retracts what it no longer says."""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import uuid4

import pytest

from redstring.composition.build_graph import build_graph
from redstring.composition.workspace import Workspace
from redstring.domain.ids import TenantId
from redstring.embeddings.fake import FakeEmbeddingProvider
from redstring.events import ChunksStored, DocumentExtracted, DocumentRetracted, decode
from redstring.events.streams import document_stream
from redstring.extraction.schemas import ExtractionOutput
from redstring.llm.fake import FakeLlmProvider

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

FIRST = "Ada Lovelace worked with Charles Babbage in London. Mary Somerville wrote to her."
SECOND = "Ada Lovelace worked with Charles Babbage in Paris."


def answer(*names: str, edges: tuple[tuple[str, str], ...] = ()) -> ExtractionOutput:
    return ExtractionOutput.model_validate(
        {
            "entities": [{"name": n, "type": "Person"} for n in names],
            "relationships": [{"source": s, "target": t, "type": "WORKS_WITH"} for s, t in edges],
        }
    )


@pytest.fixture(params=["memory", "sqlite"])
def workspace(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Workspace]:
    if request.param == "memory":
        yield Workspace.memory(dimension=16)
    else:
        with Workspace.open(tmp_path / "w.db", dimension=16) as ws:
            yield ws


async def test_chunks_are_logged_with_offsets_and_the_entities_they_hold(
    workspace: Workspace,
) -> None:
    tenant = TenantId(uuid4())
    document = "Ada Lovelace was born in London. " * 40 + "Charles Babbage lived in Paris."
    await build_graph(
        document,
        workspace=workspace,
        tenant_id=tenant,
        source_id="doc",
        chunk_size=300,
        chunk_overlap=20,
    )
    [recorded, _] = await workspace.log.read_stream(document_stream(tenant, "doc"), tenant)
    event = decode(recorded)
    assert isinstance(event, ChunksStored)
    assert len(event.chunks) > 3
    for chunk in event.chunks:
        assert document[chunk.start : chunk.end] == chunk.text
    [match] = await workspace.chunks.search("Babbage", tenant)
    assert match.chunk.chunk_id == f"doc#{event.chunks[-1].index}"
    held = {e.name for e in await workspace.graph.get_entities(match.chunk.entity_ids, tenant)}
    assert "Charles Babbage" in held


async def test_replay_rebuilds_the_chunk_store_from_the_log_alone(workspace: Workspace) -> None:
    tenant = TenantId(uuid4())
    await build_graph(FIRST, workspace=workspace, tenant_id=tenant, source_id="a")
    await build_graph(SECOND, workspace=workspace, tenant_id=tenant, source_id="b")
    before = [await workspace.chunks.search(q, tenant) for q in ("London", "Paris", "Ada")]
    await workspace.chunks.delete_by_tenant(tenant)
    assert await workspace.chunks.count(tenant) == 0
    await workspace.replay()
    assert [await workspace.chunks.search(q, tenant) for q in ("London", "Paris", "Ada")] == before
    assert await workspace.chunks.count(tenant) == 2


async def test_a_changed_document_replaces_its_chunks_and_retracts_what_it_dropped(
    workspace: Workspace,
) -> None:
    """Catches: old chunks still answering, and entities and edges the new text no
    longer supports kept on the strength of the old one."""
    tenant = TenantId(uuid4())
    embeddings = FakeEmbeddingProvider(dimension=16)
    provider = FakeLlmProvider(
        [
            answer(
                "Ada Lovelace",
                "Charles Babbage",
                "Mary Somerville",
                edges=(("Ada Lovelace", "Mary Somerville"), ("Ada Lovelace", "Charles Babbage")),
            ),
            answer("Ada Lovelace", "Charles Babbage", edges=(("Ada Lovelace", "Charles Babbage"),)),
        ]
    )
    for text in (FIRST, SECOND):
        report = await build_graph(
            text,
            workspace=workspace,
            tenant_id=tenant,
            source_id="a",
            provider=provider,
            embeddings=embeddings,
        )
        assert report.ok
    assert await workspace.chunks.search("London Somerville", tenant) == []
    [match] = await workspace.chunks.search("Paris", tenant)
    assert match.chunk.text == SECOND
    entities = {e.name: e for e in await workspace.graph.list_entities(tenant)}
    assert set(entities) == {"Ada Lovelace", "Charles Babbage"}
    # Only the new text's provenance is left: the old spans point into text that is gone.
    assert all(len(e.provenance) == 1 for e in entities.values())
    edges = await workspace.graph.list_relationships(tenant)
    assert [(e.relationship_type, len(e.provenance)) for e in edges] == [("WORKS_WITH", 1)]
    assert await workspace.vectors.count(tenant) == 2
    events = [
        decode(r) for r in await workspace.log.read_stream(document_stream(tenant, "a"), tenant)
    ]
    assert [type(e) for e in events] == [
        ChunksStored,
        DocumentExtracted,
        DocumentRetracted,
        ChunksStored,
        DocumentExtracted,
    ]
    retraction = events[2]
    assert isinstance(retraction, DocumentRetracted)
    assert retraction.superseded_version == 2
    assert len(retraction.removed_entity_ids) == 1
    # The same state comes back from the log alone.
    names = sorted(entities)
    await workspace.replay()
    assert sorted(e.name for e in await workspace.graph.list_entities(tenant)) == names
    assert await workspace.vectors.count(tenant) == 2
    assert await workspace.chunks.search("London", tenant) == []


async def test_a_retracted_member_leaves_a_merged_entity_its_other_sources(
    workspace: Workspace,
) -> None:
    """Catches: a retraction that deletes a canonical entity other documents support."""
    from redstring.composition.consolidation import Consolidator

    tenant = TenantId(uuid4())
    provider = FakeLlmProvider(
        [answer("Mary Somerville"), answer("Mary Somerville"), answer("Ada Lovelace")]
    )
    for source, text in (("a", "Mary Somerville wrote."), ("b", "Mary Somerville replied.")):
        await build_graph(
            text, workspace=workspace, tenant_id=tenant, source_id=source, provider=provider
        )
    await Consolidator(workspace).consolidate(tenant)
    [mary] = await workspace.graph.list_entities(tenant)
    assert {p.source_id for p in mary.provenance} == {"a", "b"}
    await build_graph(
        "Ada Lovelace only.",
        workspace=workspace,
        tenant_id=tenant,
        source_id="a",
        provider=provider,
    )
    by_name = {e.name: e for e in await workspace.graph.list_entities(tenant)}
    assert set(by_name) == {"Mary Somerville", "Ada Lovelace"}
    assert {p.source_id for p in by_name["Mary Somerville"].provenance} == {"b"}


async def test_a_document_cut_into_fewer_chunks_leaves_none_of_the_old_ones(
    workspace: Workspace,
) -> None:
    """Catches: a fold that upserts the new chunks without removing the old document's,
    so the tail of a shortened document keeps answering."""
    tenant = TenantId(uuid4())
    long_text = "Ada Lovelace was here. " * 10 + "Zanzibar is far away."
    for text in (long_text, "Ada Lovelace was here."):
        await build_graph(
            text,
            workspace=workspace,
            tenant_id=tenant,
            source_id="a",
            chunk_size=60,
            chunk_overlap=0,
        )
    assert await workspace.chunks.search("Zanzibar", tenant) == []
    assert await workspace.chunks.count(tenant) == 1


async def test_a_merged_entity_the_new_text_still_names_survives_an_empty_retraction() -> None:
    """Two entities of one document were merged; the new text names only the one that
    was merged away. The canonical is left with no provenance for a moment, but it is
    not deleted: the alias would point at nothing, and the re-added entity with it.
    Catches: deleting every entity a retraction empties."""
    from datetime import UTC, datetime

    from redstring.domain.entity import Entity
    from redstring.domain.ids import derived_entity_id
    from redstring.domain.provenance import Provenance
    from redstring.events import ChunkStats, EntitiesMerged
    from redstring.events.streams import merge_stream

    workspace = Workspace.memory(dimension=16)
    tenant = TenantId(uuid4())
    stream = document_stream(tenant, "a")

    def person(name: str, at: int) -> Entity:
        return Entity(
            id=derived_entity_id(tenant, "Person", name.casefold()),
            tenant_id=tenant,
            name=name,
            entity_type="Person",
            provenance=[
                Provenance(
                    observed_at=datetime(2026, 1, 1, tzinfo=UTC),
                    method="test",
                    source_id="a",
                    chunk_index=0,
                    char_start=at,
                    char_end=at + len(name),
                )
            ],
        )

    def extracted(*entities: Entity) -> DocumentExtracted:
        return DocumentExtracted(
            tenant_id=tenant,
            source_id="a",
            content_hash=str(len(entities)),
            model="m",
            entities=list(entities),
            chunks=ChunkStats(chunk_count=1, char_count=10),
        )

    kept, canonical = person("Ada", 0), person("Ada Lovelace", 10)
    await workspace.append(stream, [extracted(kept, canonical)], expected_version=0)
    merge = EntitiesMerged.build(
        tenant_id=tenant,
        merge_id=uuid4(),
        canonical=canonical,
        merged_ids=[kept.id],
        reason="test",
        entities_before=[kept, canonical],
        relationships_before=[],
    )
    await workspace.append(merge_stream(merge.merge_id), [merge], expected_version=0)
    retract = DocumentRetracted(
        tenant_id=tenant, source_id="a", superseded_version=1, removed_entity_ids=[canonical.id]
    )
    again = person("Ada", 3)
    await workspace.append(stream, [retract, extracted(again)], expected_version=1)
    await workspace.catch_up()
    found = await workspace.graph.get_entity(kept.id, tenant)
    assert found is not None
    assert found.id == canonical.id
    assert [p.char_start for p in found.provenance] == [3]
