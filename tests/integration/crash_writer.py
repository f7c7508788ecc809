"""A writer for test_crash_safety: ingests into a SQLite workspace until killed.

Usage: python crash_writer.py PATH ROUND. After each committed append it prints
`COMMIT <stream_id> <event count>` (flushed), so the test knows what it must find.
Each document append's events all carry the append's size in `content_hash`, so an
append that is only partly visible can be recognized even if it was never reported.
It also folds projections after every append and merges/undoes entities, so the
kill lands in projection transactions as often as in appends.
"""

from __future__ import annotations

import asyncio
import random
import sys
from datetime import UTC, datetime
from uuid import UUID

from redstring.composition.workspace import Workspace
from redstring.domain.entity import Entity
from redstring.domain.ids import TenantId, derived_entity_id, derived_relationship_id
from redstring.domain.normalization import normalize_name
from redstring.domain.provenance import Provenance
from redstring.domain.relationship import Relationship
from redstring.events import (
    ChunkStats,
    DocumentExtracted,
    EmbeddedEntity,
    EntitiesEmbedded,
    EntitiesMerged,
    MergeUndone,
    document_stream,
    merge_stream,
)

TENANT = TenantId(UUID("00000000-0000-4000-8000-0000000000c1"))
NAMES = [f"Person {n}" for n in range(12)]
DIMENSION = 4


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def main(path: str, round_no: int) -> None:
    rng = random.Random(round_no)
    ws = Workspace.open(path, dimension=DIMENSION)
    await ws.catch_up()
    say("READY")
    merges: list[UUID] = []
    i = 0
    while True:
        i += 1
        k = rng.randint(1, 4)
        stream = document_stream(TENANT, f"r{round_no}-d{i}")
        events = []
        for j in range(k):
            ents = []
            for name in rng.sample(NAMES, 3):
                prov = Provenance(
                    observed_at=datetime.now(UTC), method="test", source_id=f"{stream}#{j}"
                )
                ents.append(
                    Entity(
                        id=derived_entity_id(TENANT, "person", normalize_name(name)),
                        tenant_id=TENANT,
                        name=name,
                        entity_type="person",
                        provenance=[prov],
                    )
                )
            rel = Relationship(
                id=derived_relationship_id(TENANT, ents[0].id, "knows", ents[1].id),
                tenant_id=TENANT,
                source_id=ents[0].id,
                target_id=ents[1].id,
                relationship_type="knows",
            )
            events.append(
                DocumentExtracted(
                    tenant_id=TENANT,
                    source_id=stream,
                    content_hash=f"batch-of-{k}",
                    model="scripted",
                    entities=ents,
                    relationships=[rel],
                    chunks=ChunkStats(chunk_count=1, char_count=1),
                )
            )
            if j == 0:
                events.append(
                    EntitiesEmbedded(
                        tenant_id=TENANT,
                        model="fake",
                        dimension=DIMENSION,
                        vectors=[
                            EmbeddedEntity(
                                entity_id=e.id,
                                entity_type="person",
                                vector=[rng.uniform(-1, 1) for _ in range(DIMENSION)],
                            )
                            for e in ents
                        ],
                    )
                )
        # The embedding rides in the document's append; record the document count only.
        await ws.append(stream, events, expected_version=0)
        say(f"COMMIT {stream} {len(events)}")
        await ws.catch_up()
        if i % 4 == 0:
            await merge_two(ws, rng, merges)
        elif i % 7 == 0 and merges:
            merge_id = merges.pop()
            await ws.append(
                merge_stream(merge_id),
                [MergeUndone(tenant_id=TENANT, merge_id=merge_id)],
                expected_version=1,
            )
            say(f"COMMIT {merge_stream(merge_id)} 2")
            await ws.catch_up()


async def merge_two(ws: Workspace, rng: random.Random, merges: list[UUID]) -> None:
    live = await ws.graph.list_entities(TENANT)
    if len(live) < 2:
        return
    canonical, merged = rng.sample(live, 2)
    touching = {
        r.id: r for e in (canonical, merged) for r in await ws.graph.relationships(e.id, TENANT)
    }
    merge_id = UUID(int=rng.getrandbits(128), version=4)
    event = EntitiesMerged.build(
        tenant_id=TENANT,
        merge_id=merge_id,
        canonical=canonical,
        merged_ids=[merged.id],
        reason="crash test",
        entities_before=[canonical, merged],
        relationships_before=list(touching.values()),
    )
    await ws.append(merge_stream(merge_id), [event], expected_version=0)
    say(f"COMMIT {merge_stream(merge_id)} 1")
    merges.append(merge_id)
    await ws.catch_up()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
