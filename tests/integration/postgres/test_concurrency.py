"""What the embedded store cannot give: several processes on one tenant, and a fold
killed mid-batch, on PostgreSQL."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from redstring.eventlog.postgres import PostgresEventLog
from redstring.graph.memory import InMemoryGraphStore
from redstring.graph.postgres import PostgresGraphStore
from redstring.projections.checkpoints import InMemoryCheckpointStore
from redstring.projections.graph import GraphProjection
from redstring.projections.postgres import PostgresCheckpointStore
from tests.integration.postgres.pg_worker import BATCH, SHARED, TENANT, document

if TYPE_CHECKING:
    from redstring.domain.log import RecordedEvent
    from redstring.storage.postgres import PgDatabase

WORKER = Path(__file__).with_name("pg_worker.py")
ROOT = Path(__file__).resolve().parents[3]


async def worker(*args: str) -> int:
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(WORKER), *args, cwd=ROOT, env={"PYTHONPATH": str(ROOT)} | _env()
    )
    return await process.wait()


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)


async def test_four_processes_appending_to_one_tenant_lose_and_duplicate_nothing(
    pg_db: PgDatabase, pg_url: str
) -> None:
    """Catches lost updates on a shared stream (two writers at one version), and a log
    whose positions become visible out of order: the reader below follows the log
    *while* the writers append, as a projection in another process would, and must
    still see every event exactly once."""
    log = await PostgresEventLog.create(pg_db)
    writers, count = 4, 40
    assert pg_db.schema is not None
    running = [
        asyncio.ensure_future(worker("append", pg_url, pg_db.schema, str(w), str(count)))
        for w in range(writers)
    ]
    followed: list[RecordedEvent] = []
    while not all(task.done() for task in running) or (
        await log.last_position() > (followed[-1].position if followed else 0)
    ):
        followed += await log.read_all(after=followed[-1].position if followed else 0)
        await asyncio.sleep(0.01)
    assert [await task for task in running] == [0] * writers
    everything = await log.read_all()
    assert followed == everything
    seen = [(e.payload["w"], e.payload["n"]) for e in everything]
    assert sorted(seen) == sorted((w, n) for w in range(writers) for n in range(count))
    shared = await log.read_stream(SHARED, TENANT)
    assert [e.version for e in shared] == list(range(1, writers * count // 2 + 1))


async def test_a_projection_killed_mid_fold_resumes_from_its_checkpoint(
    pg_db: PgDatabase, pg_url: str
) -> None:
    """A process dies inside its second batch's transaction: the checkpoint stays at the
    first batch's end with none of the second's writes, and a catch-up in another
    process ends equal to an uninterrupted fold (catches a non-atomic unit of work, or
    a checkpoint saved apart from the writes it covers)."""
    log = await PostgresEventLog.create(pg_db)
    events = [document(n) for n in range(3 * BATCH)]
    for n, event in enumerate(events):
        await log.append(f"doc-{n}", [event.to_new_event()], tenant_id=TENANT, expected_version=0)
    assert pg_db.schema is not None
    assert await worker("fold-and-die", pg_url, pg_db.schema, str(BATCH + 2)) == 17
    graph = await PostgresGraphStore.create(pg_db)
    checkpoints = await PostgresCheckpointStore.create(pg_db)
    first_batch = (await log.read_all())[BATCH - 1].position
    assert await checkpoints.position("graph") == first_batch
    assert await graph.count_entities(TENANT) == BATCH + 1
    await GraphProjection(graph, log, checkpoints, batch_size=BATCH).catch_up()
    reference = InMemoryGraphStore()
    await GraphProjection(reference, log, InMemoryCheckpointStore()).catch_up()
    assert await graph.list_entities(TENANT) == await reference.list_entities(TENANT)
    assert len(await reference.list_entities(TENANT)) == 3 * BATCH + 1
