"""build_graph: a document becomes events, projected stores, and vectors."""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import uuid4

import pytest

from redstring.composition.build_graph import BuildProgress, build_graph, build_graphs
from redstring.composition.consolidation import Consolidator
from redstring.composition.workspace import Workspace
from redstring.domain.exceptions import InvalidInputError, MalformedOutputError
from redstring.domain.ids import TenantId
from redstring.embeddings.fake import FakeEmbeddingProvider
from redstring.extraction.schemas import ExtractionOutput
from redstring.llm.fake import FakeLlmProvider

if TYPE_CHECKING:
    from collections.abc import Sequence

TEXT = (
    "Ada Lovelace worked with Charles Babbage in London. "
    "Charles Babbage designed the Analytical Engine."
)


def llm_answer() -> ExtractionOutput:
    return ExtractionOutput.model_validate(
        {
            "entities": [
                {"name": "Ada Lovelace", "type": "Person"},
                {"name": "Charles Babbage", "type": "Person"},
                {"name": "London", "type": "Location"},
            ],
            "relationships": [
                {"source": "Ada Lovelace", "target": "Charles Babbage", "type": "WORKS_WITH"},
                {"source": "Ada Lovelace", "target": "Nobody Known", "type": "KNOWS"},
            ],
        }
    )


@pytest.fixture
def workspace() -> Workspace:
    return Workspace.memory(dimension=384)


async def test_a_document_becomes_entities_relationships_and_vectors(
    workspace: Workspace,
) -> None:
    tenant = TenantId(uuid4())
    provider = FakeLlmProvider([llm_answer()])
    report = await build_graph(
        TEXT,
        workspace=workspace,
        tenant_id=tenant,
        source_id="doc-1",
        provider=provider,
        embeddings=FakeEmbeddingProvider(dimension=384),
    )
    assert report.ok
    assert (report.entities, report.relationships, report.unresolved_relationships) == (3, 1, 1)
    assert report.embedded == 3
    assert (report.total_chunks, report.failed_chunks) == (1, 0)
    names = sorted(e.name for e in await workspace.graph.list_entities(tenant))
    assert names == ["Ada Lovelace", "Charles Babbage", "London"]
    assert len(await workspace.graph.list_relationships(tenant)) == 1
    assert await workspace.vectors.count(tenant) == 3
    [ada] = [e for e in await workspace.graph.list_entities(tenant) if e.name == "Ada Lovelace"]
    [where] = ada.provenance
    assert (where.source_id, where.char_start, where.char_end) == ("doc-1", 0, 12)
    assert TEXT[where.char_start : where.char_end] == "Ada Lovelace"


async def test_the_same_document_twice_adds_nothing(workspace: Workspace) -> None:
    tenant = TenantId(uuid4())
    provider = FakeLlmProvider([llm_answer()])
    first = await build_graph(
        TEXT, workspace=workspace, tenant_id=tenant, source_id="doc-1", provider=provider
    )
    position = await workspace.log.last_position()
    again = await build_graph(
        TEXT, workspace=workspace, tenant_id=tenant, source_id="doc-1", provider=provider
    )
    assert first.entities == 3
    assert again.unchanged
    assert again.entities == 0
    assert await workspace.log.last_position() == position
    assert len(provider.calls) == 1
    assert await workspace.graph.count_entities(tenant) == 3


async def test_the_same_name_in_two_documents_is_joined_by_the_resolver_not_at_ingest(
    workspace: Workspace,
) -> None:
    """Catches: ingest joining two documents' mentions by name alone (ADR 0012), or
    consolidation failing to join an equal full name across documents."""
    tenant = TenantId(uuid4())
    for source in ("a.txt", "b.txt"):
        await build_graph(
            f"{source}: Ada Lovelace wrote notes.",
            workspace=workspace,
            tenant_id=tenant,
            source_id=source,
        )
    named = [e for e in await workspace.graph.list_entities(tenant) if e.name == "Ada Lovelace"]
    assert sorted(p.source_id for e in named for p in e.provenance) == ["a.txt", "b.txt"]
    assert len(named) == 2
    await Consolidator(workspace).consolidate(tenant)
    [ada] = [e for e in await workspace.graph.list_entities(tenant) if e.name == "Ada Lovelace"]
    assert {p.source_id for p in ada.provenance} == {"a.txt", "b.txt"}


async def test_a_failed_extraction_reaches_no_store_and_says_why(workspace: Workspace) -> None:
    tenant = TenantId(uuid4())
    provider = FakeLlmProvider([MalformedOutputError("not json")])
    report = await build_graph(
        TEXT, workspace=workspace, tenant_id=tenant, source_id="doc-1", provider=provider
    )
    assert not report.ok
    assert report.error is not None
    assert "not json" in report.error
    assert (report.failed_chunks, report.total_chunks) == (1, 1)
    # Only the failure's record: no chunk worked, so no answer is kept.
    logged = await workspace.log.read_all()
    assert [r.event_type for r in logged] == ["ExtractionFailed"]
    assert await workspace.graph.count_entities(tenant) == 0
    retry = await build_graph(
        TEXT,
        workspace=workspace,
        tenant_id=tenant,
        source_id="doc-1",
        provider=FakeLlmProvider([llm_answer()]),
    )
    assert retry.ok
    assert retry.entities == 3


async def test_offline_extraction_needs_no_model_and_reports_progress(
    workspace: Workspace,
) -> None:
    tenant = TenantId(uuid4())
    seen: list[BuildProgress] = []
    report = await build_graph(
        TEXT, workspace=workspace, tenant_id=tenant, source_id="doc-1", progress=seen.append
    )
    assert report.ok
    assert report.entities >= 2
    assert [p.stage for p in seen] == ["chunked", "extracted", "appended"]


async def test_an_empty_document_is_refused(workspace: Workspace) -> None:
    with pytest.raises(InvalidInputError, match="empty"):
        await build_graph(
            "  \n", workspace=workspace, tenant_id=TenantId(uuid4()), source_id="empty.txt"
        )


async def test_replay_rebuilds_the_stores_with_no_model_calls(workspace: Workspace) -> None:
    tenant = TenantId(uuid4())
    embeddings = FakeEmbeddingProvider(dimension=384)
    await build_graph(
        TEXT,
        workspace=workspace,
        tenant_id=tenant,
        source_id="doc-1",
        provider=FakeLlmProvider([llm_answer()]),
        embeddings=embeddings,
    )
    before_entities = await workspace.graph.list_entities(tenant)
    before_vectors = await workspace.vectors.count(tenant)
    calls = embeddings.calls
    await workspace.replay()
    assert await workspace.graph.list_entities(tenant) == before_entities
    assert await workspace.vectors.count(tenant) == before_vectors
    assert embeddings.calls == calls


class CountingEmbedder(FakeEmbeddingProvider):
    """Counts model calls and texts, to show batching and the per-build cache."""

    def __init__(self) -> None:
        super().__init__(dimension=384)
        self.batches: list[list[str]] = []

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.batches.append(list(texts))
        return await super().embed(texts)


async def test_many_documents_log_the_same_events_with_one_model_call_per_batch(
    workspace: Workspace,
) -> None:
    """Catches: batching that changes what the log holds, embeds a repeated entity twice,
    or calls the model once per document again."""
    documents = [
        ("a", "Ada Lovelace lived in London."),
        ("b", "Charles Babbage lived in London."),
        ("c", "Mary Somerville met Ada Lovelace."),
    ]
    tenant = TenantId(uuid4())
    embedder = CountingEmbedder()
    reports = await build_graphs(
        documents, workspace=workspace, tenant_id=tenant, embeddings=embedder, batch_size=2
    )
    assert [r.source_id for r in reports] == ["a", "b", "c"]
    assert all(r.ok and r.entities == 2 for r in reports)
    # Batch one embeds London once; batch two only the new name.
    assert [sorted(b) for b in embedder.batches] == [
        ["Ada Lovelace", "Charles Babbage", "London"],
        ["Mary Somerville"],
    ]
    one_by_one = Workspace.memory(dimension=384)
    for source_id, text in documents:
        await build_graph(text, workspace=one_by_one, tenant_id=tenant, source_id=source_id)
    batched = sorted(
        (e.name, len(e.provenance)) for e in await workspace.graph.list_entities(tenant)
    )
    single = sorted(
        (e.name, len(e.provenance)) for e in await one_by_one.graph.list_entities(tenant)
    )
    assert batched == single
    # One vector per entity (ids are per document), one model call per distinct name.
    assert len(await workspace.vectors.search([0.1] * 384, tenant, k=10)) == 6
    again = await build_graphs(documents[:1], workspace=workspace, tenant_id=tenant)
    assert again[0].unchanged


async def test_a_batch_refuses_a_repeated_source_id(workspace: Workspace) -> None:
    """Catches: the second copy failing on the stream version after the first was appended."""
    with pytest.raises(InvalidInputError, match="given twice"):
        await build_graphs(
            [("a", "Ada Lovelace."), ("a", "Ada Lovelace again.")],
            workspace=workspace,
            tenant_id=TenantId(uuid4()),
        )
    with pytest.raises(InvalidInputError, match="batch_size"):
        await build_graphs(
            [("a", "Ada.")], workspace=workspace, tenant_id=TenantId(uuid4()), batch_size=0
        )
