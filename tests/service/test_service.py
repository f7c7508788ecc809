"""`WorkspaceService`: store calls off the event loop, one writer, snapshot reads."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import TYPE_CHECKING

import pytest

from redstring.application import use_cases
from redstring.application.service import WorkspaceService
from redstring.application.use_cases import RecordMapping
from redstring.domain.exceptions import NotFoundError
from tests.service.conftest import PEOPLE

if TYPE_CHECKING:
    from pathlib import Path

    from redstring.application.workspaces import Workspace


async def _ingest_people(service: WorkspaceService) -> None:
    tenant_id = await service.tenant("acme")

    async def write(workspace: Workspace) -> None:
        await use_cases.ingest_records(
            PEOPLE, workspace, tenant_id, source_id="people.csv",
            mapping=RecordMapping(type_field="type", id_field="id"),
        )  # fmt: skip

    await service.write(write)


async def test_a_read_of_several_statements_sees_one_committed_state(
    service: WorkspaceService,
) -> None:
    """A write committing between a read's two statements is not seen by the second."""
    tenant_id = await service.tenant("acme")
    first_done, written = threading.Event(), threading.Event()

    async def count_twice(workspace: Workspace) -> tuple[int, int]:
        first = await workspace.graph.count_entities(tenant_id)
        first_done.set()
        assert written.wait(30)
        return first, await workspace.graph.count_entities(tenant_id)

    reading = asyncio.ensure_future(service.read(count_twice))
    assert await asyncio.to_thread(first_done.wait, 30)
    await _ingest_people(service)
    written.set()
    assert await reading == (0, 0)

    async def count(workspace: Workspace) -> int:
        return await workspace.graph.count_entities(tenant_id)

    assert await service.read(count) == 3


async def test_a_slow_store_call_does_not_stall_the_event_loop_or_the_readers(
    service: WorkspaceService,
) -> None:
    """A write holding its thread for 0.5 s: the loop keeps ticking and a read
    finishes before it."""
    tenant_id = await service.tenant("acme")

    async def slow_write(workspace: Workspace) -> float:
        time.sleep(0.5)  # a long SQLite call, as a large ingest's commit would be
        return time.monotonic()

    async def quick_read(workspace: Workspace) -> float:
        await workspace.graph.count_entities(tenant_id)
        return time.monotonic()

    writing = asyncio.ensure_future(service.write(slow_write))
    await asyncio.sleep(0.05)
    ticks = 0
    read_at = await service.read(quick_read)
    while not writing.done():
        await asyncio.sleep(0.01)
        ticks += 1
    assert read_at < await writing
    assert ticks >= 10


async def test_writes_run_one_at_a_time_in_arrival_order(service: WorkspaceService) -> None:
    seen: list[tuple[str, str]] = []

    def writer(name: str) -> object:
        async def write(workspace: Workspace) -> None:
            seen.append((name, "start"))
            await asyncio.sleep(0.02)
            seen.append((name, "end"))

        return write

    await asyncio.gather(*(service.write(writer(n)) for n in "abc"))  # type: ignore[arg-type]
    assert seen == [(n, edge) for n in "abc" for edge in ("start", "end")]


def test_serving_a_missing_workspace_is_refused_at_start(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="redstring init"):
        WorkspaceService(tmp_path / "absent.db")


async def test_a_served_file_gets_the_vectors_its_records_lack_before_serving(
    service: WorkspaceService,
) -> None:
    """Catches a service that serves records without vectors (searches only read, so
    none would ever be embedded) or that embeds them again at every start."""
    await _ingest_people(service)
    tenant_id = await service.tenant("acme")

    async def vectors(workspace: Workspace) -> int:
        return await workspace.vectors.count(tenant_id)

    assert await service.read(vectors) == 0
    assert await service.fill_vectors() == 3
    assert await service.read(vectors) == 3
    assert await service.fill_vectors() == 0


async def test_records_ingested_outside_a_served_workspace_without_a_model_are_found(
    tmp_path: Path,
) -> None:
    """Catches a served file whose keys the CLI left unfiled (an SQLite graph files
    them on first read, and served reads cannot write) staying unsearchable when the
    workspace has no embedding model to fill vectors for, so nothing wrote first."""
    from redstring.application.workspaces import Embedder, create_workspace, open_workspace
    from redstring.domain.retrieval import RetrievalMode

    db = tmp_path / "lexical.db"
    create_workspace(db, Embedder.NONE, "acme")
    with open_workspace(db) as workspace:
        await use_cases.ingest_records(
            PEOPLE, workspace, workspace.tenant("acme"), source_id="people.csv",
            mapping=RecordMapping(type_field="type", id_field="id"),
        )  # fmt: skip
    served = WorkspaceService(db, readers=1)
    try:
        await served.fill_vectors()  # what serving does before its first request
        tenant_id = await served.tenant("acme")

        async def search(workspace: Workspace) -> list[str]:
            found = await use_cases.search(
                workspace, tenant_id, "Grace Hopper", embeddings=None, mode=RetrievalMode.LEXICAL
            )
            return [match.entity.name for match in found.matches]

        assert "Grace Hopper" in await served.read(search)
    finally:
        served.close()
