"""Processes for the PostgreSQL concurrency tests (test_concurrency.py).

python pg_worker.py append URL SCHEMA WRITER COUNT
    append COUNT events: even ones to the writer's own stream, odd ones to the
    stream every writer shares, retrying a stale version as a real writer must.
python pg_worker.py fold-and-die URL SCHEMA DIE_AT
    fold the graph projection (batches of 4) and `os._exit` inside the unit of
    work on the DIE_AT-th entity write: a process killed mid-fold.
"""

from __future__ import annotations

import asyncio
import os
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING
from uuid import UUID

from redstring.domain.entity import Entity
from redstring.domain.exceptions import ConcurrencyError
from redstring.domain.ids import TenantId, derived_entity_id
from redstring.domain.log import NewEvent
from redstring.domain.normalization import normalize_name
from redstring.domain.provenance import Provenance
from redstring.eventlog.postgres import PostgresEventLog
from redstring.events import ChunkStats, DocumentExtracted
from redstring.graph.postgres import PostgresGraphStore
from redstring.projections.graph import GraphProjection
from redstring.projections.postgres import PostgresCheckpointStore
from redstring.storage.postgres import PgDatabase

if TYPE_CHECKING:
    from collections.abc import Sequence

TENANT = TenantId(UUID("00000000-0000-4000-8000-0000000000d1"))
SHARED = "shared"
#: Events in each fold batch of `fold-and-die`.
BATCH = 4


def document(n: int) -> DocumentExtracted:
    """Document n mentions persons n and n + 1: consecutive documents overlap, so a
    fold that applied one twice or skipped one shows in the provenance."""
    source = f"doc-{n}"
    entities = [
        Entity(
            id=derived_entity_id(TENANT, "person", normalize_name(f"Person {m}")),
            tenant_id=TENANT,
            name=f"Person {m}",
            entity_type="person",
            provenance=[
                Provenance(
                    observed_at=datetime(2026, 1, 1, tzinfo=UTC), method="test", source_id=source
                )
            ],
        )
        for m in (n, n + 1)
    ]
    return DocumentExtracted(
        tenant_id=TENANT,
        source_id=source,
        content_hash=f"h{n}",
        model="scripted",
        entities=entities,
        chunks=ChunkStats(chunk_count=1, char_count=1),
    )


async def append(url: str, schema: str, writer: int, count: int) -> None:
    db = await PgDatabase.open(url, schema=schema, max_size=2)
    log = await PostgresEventLog.create(db)
    own = f"writer-{writer}"
    for n in range(count):
        event = NewEvent(event_type="Tested", schema_version=1, payload={"w": writer, "n": n})
        stream = own if n % 2 == 0 else SHARED
        while True:
            version = await log.stream_version(stream, TENANT)
            try:
                await log.append(stream, [event], tenant_id=TENANT, expected_version=version)
                break
            except ConcurrencyError:
                continue
    await db.close()


class _DyingGraph(PostgresGraphStore):
    """Exits the process, mid-transaction, on its `die_at`-th entity write."""

    die_at = 0
    writes = 0

    async def upsert_entities(self, entities: Sequence[Entity], tenant_id: TenantId) -> None:
        await super().upsert_entities(entities, tenant_id)
        type(self).writes += 1
        if type(self).writes == self.die_at:
            os._exit(17)


async def fold_and_die(url: str, schema: str, die_at: int) -> None:
    db = await PgDatabase.open(url, schema=schema, max_size=2)
    await PostgresGraphStore.create(db)
    _DyingGraph.die_at = die_at
    projection = GraphProjection(
        _DyingGraph(db),
        await PostgresEventLog.create(db),
        await PostgresCheckpointStore.create(db),
        batch_size=BATCH,
    )
    await projection.catch_up()


if __name__ == "__main__":
    command, url, schema, *rest = sys.argv[1:]
    if command == "append":
        asyncio.run(append(url, schema, int(rest[0]), int(rest[1])))
    elif command == "fold-and-die":
        asyncio.run(fold_and_die(url, schema, int(rest[0])))
    else:
        raise SystemExit(f"unknown command {command!r}")
