"""Records get their vectors from the first search that needs them, once, for the
entities still live."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import uuid4

from redstring.application import use_cases
from redstring.composition.build_graph import embed_missing
from redstring.composition.records import RecordMapping, import_records
from redstring.composition.workspace import Workspace
from redstring.domain.ids import TenantId
from redstring.domain.retrieval import RetrievalMode
from redstring.embeddings.fake import FakeEmbeddingProvider

ROWS = [{"id": str(n), "name": name} for n, name in enumerate(["Ada", "Bob", "Cy"])]


async def test_only_the_entities_without_a_vector_are_embedded_and_only_once() -> None:
    """Catches a search that cannot find records (never embedded), one that embeds
    every entity again on each search, and a count that skips a tenant whose
    documents are embedded but whose records are not."""
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    provider = FakeEmbeddingProvider(dimension=384)
    calls: list[int] = []
    real = provider.embed

    async def counting(texts: list[str]) -> list[list[float]]:
        calls.append(len(texts))
        return await real(texts)

    provider.embed = counting  # type: ignore[method-assign]
    mapping = RecordMapping(entity_type="person", id_field="id")
    await import_records(
        ROWS[:1], workspace=workspace, tenant_id=tenant, source_id="a.csv",
        mapping=mapping, observed_at=datetime.now(UTC), embeddings=provider,
    )  # fmt: skip
    await use_cases.ingest_records(ROWS[1:], workspace, tenant, source_id="b.csv", mapping=mapping)
    assert await workspace.vectors.count(tenant) == 1
    assert await embed_missing(workspace, tenant, provider) == 2
    assert calls == [1, 2]
    assert await workspace.vectors.count(tenant) == 3
    assert await embed_missing(workspace, tenant, provider) == 0
    assert calls == [1, 2]
    found = await use_cases.search(
        workspace, tenant, "Cy", embeddings=provider, mode=RetrievalMode.SEMANTIC, k=3
    )
    assert "Cy" in {m.entity.name for m in found.matches}
