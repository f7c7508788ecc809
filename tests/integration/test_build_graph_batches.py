"""`build_graphs` on a file workspace: a batch commits whole or not at all."""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import uuid4

import pytest

from redstring.composition.build_graph import build_graphs
from redstring.composition.workspace import Workspace
from redstring.domain.ids import TenantId
from redstring.embeddings.fake import FakeEmbeddingProvider
from redstring.events.streams import document_stream

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

PEOPLE = ["Ada Lovelace", "Mary Somerville", "Michael Faraday", "John Herschel"]
DOCUMENTS = [
    (f"doc-{i}", f"{name} met Charles Babbage in London in 18{30 + i}.")
    for i, name in enumerate(PEOPLE)
]


class Boom(RuntimeError):
    pass


async def test_a_failure_inside_a_batch_marks_none_of_it_done_and_a_rerun_completes_it(
    tmp_path: Path,
) -> None:
    """Catches a batch whose appends commit one by one: documents appended before the
    failure would be marked done by their content hash and never projected or embedded."""
    tenant = TenantId(uuid4())
    path = tmp_path / "ws.db"
    embeddings = FakeEmbeddingProvider(dimension=384)
    with Workspace.open(path, dimension=384) as ws:
        catch_up = ws.catch_up
        calls = 0

        async def failing_second_catch_up() -> None:
            nonlocal calls
            calls += 1
            if calls == 2:
                raise Boom("disk gone")
            await catch_up()

        ws.catch_up = failing_second_catch_up  # type: ignore[method-assign]
        with pytest.raises(Boom):
            await build_graphs(
                DOCUMENTS, workspace=ws, tenant_id=tenant, embeddings=embeddings, batch_size=2
            )
    with Workspace.open(path, create=False) as ws:
        versions = [
            await ws.log.stream_version(document_stream(tenant, source_id), tenant)
            for source_id, _ in DOCUMENTS
        ]
        assert versions == [2, 2, 0, 0]  # ChunksStored + DocumentExtracted each
        reports = await build_graphs(
            DOCUMENTS, workspace=ws, tenant_id=tenant, embeddings=embeddings, batch_size=2
        )
        assert [r.unchanged for r in reports] == [True, True, False, False]
        assert all(r.ok and r.entities > 0 and r.embedded == r.entities for r in reports[2:])
        assert [r.entities for r in reports[:2]] == [0, 0]
        names = {e.name for e in await ws.graph.list_entities(tenant)}
        assert set(PEOPLE) <= names
        entities = await ws.graph.count_entities(tenant)
        vectors = await ws.vectors.count(tenant)
    clean = Workspace.memory(dimension=384)
    await build_graphs(DOCUMENTS, workspace=clean, tenant_id=tenant, embeddings=embeddings)
    assert (entities, vectors) == (
        await clean.graph.count_entities(tenant),
        await clean.vectors.count(tenant),
    )


class FailingSecondEmbedding(FakeEmbeddingProvider):
    def __init__(self) -> None:
        super().__init__(dimension=384)
        self.embed_calls = 0

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.embed_calls += 1
        if self.embed_calls == 2:
            raise Boom("model crashed")
        return await super().embed(texts)


async def test_a_failed_embedding_commits_no_part_of_its_batch(tmp_path: Path) -> None:
    """Catches the embedding pipeline committing a batch whose vectors never came:
    the batch before it commits, the failed one leaves no document marked done."""
    tenant = TenantId(uuid4())
    path = tmp_path / "ws.db"
    with Workspace.open(path, dimension=384) as ws:
        with pytest.raises(Boom):
            await build_graphs(
                DOCUMENTS,
                workspace=ws,
                tenant_id=tenant,
                embeddings=FailingSecondEmbedding(),
                batch_size=2,
            )
        versions = [
            await ws.log.stream_version(document_stream(tenant, source_id), tenant)
            for source_id, _ in DOCUMENTS
        ]
        assert versions == [2, 2, 0, 0]  # ChunksStored + DocumentExtracted each
        reports = await build_graphs(
            DOCUMENTS,
            workspace=ws,
            tenant_id=tenant,
            embeddings=FakeEmbeddingProvider(dimension=384),
            batch_size=2,
        )
        assert [r.unchanged for r in reports] == [True, True, False, False]
        assert await ws.vectors.count(tenant) == await ws.graph.count_entities(tenant)
