"""Extractions become entities and relationships: derived ids, merged provenance, unresolved."""

from __future__ import annotations

from datetime import UTC, datetime

from redstring.domain.ids import derived_relationship_id, document_entity_id, tenant_id_for
from redstring.extraction.chunking import Chunk
from redstring.extraction.extractor import ChunkExtraction, EntityMention, RelationMention
from redstring.extraction.mapping import map_document

TENANT = tenant_id_for("acme")
WHEN = datetime(2024, 5, 1, tzinfo=UTC)


def extraction(
    chunk: Chunk, entities: list[EntityMention], edges: list[RelationMention] = ()
) -> ChunkExtraction:  # type: ignore[assignment]
    return ChunkExtraction(chunk, tuple(entities), tuple(edges), method="llm", model="m1")


def test_ids_provenance_and_merge_within_document() -> None:
    """Catches: random ids (re-ingest duplicates), chunk-relative spans, lost provenance."""
    c0 = Chunk(0, "Ada Lovelace met Babbage.", 0, 25)
    c1 = Chunk(1, "Later ADA LOVELACE wrote.", 20, 45)
    graph = map_document(
        TENANT,
        "doc-1",
        [
            extraction(
                c0,
                [
                    EntityMention(
                        "Ada Lovelace",
                        "Person",
                        ((0, 12),),
                        properties={"born": "1815"},
                        confidence=0.4,
                    ),
                    EntityMention("Babbage", "Person", ((17, 24),)),
                ],
                [RelationMention("ada lovelace", "Babbage", "KNOWS", confidence=0.7)],
            ),
            extraction(
                c1,
                [
                    EntityMention(
                        "ADA LOVELACE",
                        "Person",
                        ((6, 18),),
                        properties={"born": "x", "died": "1852"},
                        confidence=0.9,
                    )
                ],
                [RelationMention("Ada Lovelace", "Babbage", "KNOWS", confidence=0.5)],
            ),
        ],
        observed_at=WHEN,
    )
    ada_id = document_entity_id(TENANT, "doc-1", "Person", "ada lovelace")
    ada = next(e for e in graph.entities if e.id == ada_id)
    assert len(graph.entities) == 2
    assert ada.name == "Ada Lovelace"
    assert ada.confidence == 0.9
    assert ada.properties == {"born": "1815", "died": "1852"}
    assert [(p.chunk_index, p.char_start, p.char_end) for p in ada.provenance] == [
        (0, 0, 12),
        (1, 26, 38),
    ]
    assert all(
        p.source_id == "doc-1" and p.model == "m1" and p.observed_at == WHEN for p in ada.provenance
    )
    (edge,) = graph.relationships
    babbage_id = document_entity_id(TENANT, "doc-1", "Person", "babbage")
    assert edge.id == derived_relationship_id(TENANT, ada_id, "KNOWS", babbage_id)
    assert (edge.source_id, edge.target_id, edge.confidence) == (ada_id, babbage_id, 0.7)
    assert len(edge.provenance) == 2
    assert graph.unresolved == []


def test_unresolved_and_self_loop_edges_are_reported_not_stored() -> None:
    """Catches: edges to never-extracted entities stored dangling, or self-loops crashing."""
    chunk = Chunk(0, "Ada and Ada.", 0, 12)
    graph = map_document(
        TENANT,
        "doc-2",
        [
            extraction(
                chunk,
                [EntityMention("Ada", "Person", ((0, 3),))],
                [RelationMention("Ada", "Ghost", "KNOWS"), RelationMention("Ada", "ada", "KNOWS")],
            )
        ],
        observed_at=WHEN,
    )
    assert graph.relationships == []
    assert [u.reason for u in graph.unresolved] == [
        "endpoint not among the extracted entities",
        "both endpoints are the same entity",
    ]


def test_same_input_same_ids() -> None:
    """Catches: ids that depend on run order or time, breaking idempotent re-ingestion."""
    chunk = Chunk(0, "Ada", 0, 3)
    runs = [
        map_document(TENANT, "d", [extraction(chunk, [EntityMention("Ada", "Person", ((0, 3),))])])
        for _ in range(2)
    ]
    assert runs[0].entities[0].id == runs[1].entities[0].id


def test_every_reported_occurrence_gets_its_own_provenance() -> None:
    """Catches: only the first occurrence per chunk kept, so later mentions of a name are
    invisible to mention-level evaluation and to the resolver's document evidence."""
    chunk = Chunk(0, "Booth met Booth.", 10, 26)
    graph = map_document(
        TENANT,
        "doc-1",
        [extraction(chunk, [EntityMention("Booth", "Person", ((0, 5), (10, 15)))])],
        observed_at=WHEN,
    )
    (booth,) = graph.entities
    assert [(p.char_start, p.char_end) for p in booth.provenance] == [(10, 15), (20, 25)]


def test_the_same_name_in_two_documents_is_two_entities_until_resolved() -> None:
    """Catches: a tenant-wide id joining "Milan" (Italy) and "Milan" (New Hampshire)
    at ingest, before any resolver reads their contexts."""
    chunk = Chunk(0, "Milan is far.", 0, 13)
    first, second, again = (
        map_document(
            TENANT, doc, [extraction(chunk, [EntityMention("Milan", "Location", ((0, 5),))])]
        )
        for doc in ("italy.txt", "new-hampshire.txt", "italy.txt")
    )
    assert first.entities[0].id != second.entities[0].id
    assert first.entities[0].id == again.entities[0].id  # re-ingesting a document upserts
