"""Found by the crash harness: records appended, then the process died before their
vectors were: a rerun found the records unchanged and never embedded them."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from redstring.composition.records import RecordMapping, import_records
from redstring.composition.workspace import Workspace
from redstring.domain.exceptions import ProviderUnavailableError
from redstring.embeddings.fake import FakeEmbeddingProvider

RECORDS = [{"id": str(n), "name": f"Person {n}"} for n in range(5)]
MAPPING = RecordMapping(name_field="name", entity_type="Person", id_field="id")


class DiesWhileEmbedding(FakeEmbeddingProvider):
    async def embed(self, texts: list[str]) -> list[list[float]]:
        raise ProviderUnavailableError("the process died here")


async def test_records_whose_embedding_died_are_embedded_by_the_rerun() -> None:
    ws = Workspace.memory(dimension=8)
    tenant = ws.register_tenant("t")
    when = datetime(2026, 1, 1, tzinfo=UTC)

    with pytest.raises(ProviderUnavailableError):
        await import_records(
            RECORDS,
            workspace=ws,
            tenant_id=tenant,
            source_id="people.jsonl",
            mapping=MAPPING,
            observed_at=when,
            embeddings=DiesWhileEmbedding(dimension=8),
        )
    assert await ws.log.last_position() == 0, "records were stored without their vectors"

    report = await import_records(
        RECORDS,
        workspace=ws,
        tenant_id=tenant,
        source_id="people.jsonl",
        mapping=MAPPING,
        observed_at=when,
        embeddings=FakeEmbeddingProvider(dimension=8),
    )
    assert (report.entities, report.embedded) == (5, 5)
    assert await ws.vectors.count(tenant) == await ws.graph.count_entities(tenant) == 5
