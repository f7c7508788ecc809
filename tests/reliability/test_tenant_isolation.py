"""Tenant isolation at scale: a hypothesis state machine per adapter set.

Two tenants share every entity and relationship id and every name; random interleaved
ingest, embed, merge, undo, delete and search run against a workspace of in-memory
adapters, one of SQLite adapters (event log, graph, sqlite-vec vectors) and one of
PostgreSQL adapters (pgvector). Each
tenant's entity and vector types carry its label (`a-person`, `b-person`) and its
entities an `owner` property, so a read that returns the other tenant's row is seen
even where the ids collide. After every step every read path is checked for both
tenants. `REDSTRING_FUZZ_STEPS` sets the operations per run (`bench/fuzz.py`). The
PostgreSQL adapters run the same machine when `REDSTRING_TEST_PG_URL` names a server.
"""

from __future__ import annotations

import asyncio
import os
import random
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from uuid import UUID, uuid4

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from pydantic import ValidationError

from redstring.composition.workspace import Workspace, release_connections
from redstring.domain.blocking import query_blocking_keys
from redstring.domain.entity import Entity
from redstring.domain.ids import EntityId, RelationshipId, TenantId
from redstring.domain.provenance import Provenance
from redstring.domain.relationship import Relationship
from redstring.events import (
    EmbeddedEntity,
    EntitiesEmbedded,
    EntitiesMerged,
    MergeUndone,
    RecordsImported,
    embeddings_stream,
    merge_stream,
    records_stream,
)
from tests.reliability.fuzz import EXAMPLES
from tests.support.postgres import drop_database

LABELS = ("a", "b")
TENANTS = {label: TenantId(UUID(int=0xA0 + n)) for n, label in enumerate(LABELS)}
IDS = [EntityId(UUID(int=n)) for n in range(1, 9)]
NAMES = ("Ada Lovelace", "Alan Turing", "Grace Hopper", "Ada Byron", "Acme Corp")
DIMENSION = 4
STEPS = int(os.environ.get("REDSTRING_FUZZ_STEPS", "30"))
RUNS = int(os.environ.get("REDSTRING_FUZZ_RUNS", "4"))
WHEN = datetime(2026, 1, 1, tzinfo=UTC)
PG_URL = "REDSTRING_TEST_PG_URL"

labels = st.sampled_from(LABELS)


def entity(label: str, entity_id: EntityId, name: str) -> Entity:
    return Entity(
        id=entity_id,
        tenant_id=TENANTS[label],
        name=name,
        entity_type=f"{label}-person",
        properties={"owner": label},
        provenance=[Provenance(observed_at=WHEN, method="record", source_id=f"{label}:src")],
    )


class Isolation(RuleBasedStateMachine):
    """Subclassed per adapter set; `open_workspace` says which."""

    def open_workspace(self) -> Workspace:
        raise NotImplementedError

    @initialize()
    def start(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.ws = self.open_workspace()
        self.merges: dict[str, list[UUID]] = {label: [] for label in LABELS}
        self.streams: dict[str, set[str]] = {label: set() for label in LABELS}
        # Both tenants start with every colliding id live and embedded, so every check
        # has the other tenant's rows to leak from.
        for n, label in enumerate(LABELS):
            self.ingest(label, IDS, [NAMES[i % len(NAMES)] for i in range(len(IDS))], 3, 0)
            self.embed(label, n)

    def teardown(self) -> None:
        if hasattr(self, "ws"):
            self.ws.close()
            self.loop.close()

    def run(self, coroutine: object) -> object:
        return self.loop.run_until_complete(coroutine)  # type: ignore[arg-type]

    async def _append(self, label: str, stream: str, events: list[object]) -> None:
        version = await self.ws.log.stream_version(stream, TENANTS[label])
        await self.ws.append(stream, events, expected_version=version)  # type: ignore[arg-type]
        self.streams[label].add(stream)
        await self.ws.catch_up()

    async def _live(self, label: str) -> list[Entity]:
        return sorted(await self.ws.graph.list_entities(TENANTS[label]), key=lambda e: str(e.id))

    @rule(
        label=labels,
        ids=st.lists(st.sampled_from(IDS), min_size=1, max_size=4, unique=True),
        names=st.lists(st.sampled_from(NAMES), min_size=4, max_size=4),
        edges=st.integers(0, 3),
        source=st.integers(0, 3),
    )
    def ingest(
        self, label: str, ids: list[EntityId], names: list[str], edges: int, source: int
    ) -> None:
        EXAMPLES[f"ops-{type(self).__name__}"] += 1
        tenant = TENANTS[label]
        entities = [entity(label, i, names[k % len(names)]) for k, i in enumerate(ids)]
        rels = [
            Relationship(
                id=RelationshipId(UUID(int=1000 + n)),
                tenant_id=tenant,
                source_id=entities[n % len(entities)].id,
                target_id=entities[(n + 1) % len(entities)].id,
                relationship_type="knows",
                provenance=[Provenance(observed_at=WHEN, method="record", source_id=label)],
            )
            for n in range(edges)
            if len(entities) > 1
        ]
        event = RecordsImported(
            tenant_id=tenant, source_id=f"s{source}", entities=entities, relationships=rels
        )
        self.run(self._append(label, records_stream(tenant, f"s{source}"), [event]))

    @rule(label=labels, seed=st.integers(0, 2**32 - 1))
    def embed(self, label: str, seed: int) -> None:
        EXAMPLES[f"ops-{type(self).__name__}"] += 1
        live = self.run(self._live(label))
        assert isinstance(live, list)
        if not live:
            return
        rng = random.Random(seed)
        event = EntitiesEmbedded(
            tenant_id=TENANTS[label],
            model="fake",
            dimension=DIMENSION,
            vectors=[
                EmbeddedEntity(
                    entity_id=e.id,
                    entity_type=e.entity_type,
                    vector=[rng.uniform(-1, 1) for _ in range(DIMENSION)],
                )
                for e in live
            ],
        )
        self.run(self._append(label, embeddings_stream(TENANTS[label], "fake"), [event]))

    async def _merge(self, label: str, seed: int) -> None:
        tenant = TENANTS[label]
        live = await self._live(label)
        if len(live) < 2:
            return
        rng = random.Random(seed)
        canonical, merged = rng.sample(live, 2)
        before = [canonical, merged]
        edges = {r.id: r for e in before for r in await self.ws.graph.relationships(e.id, tenant)}
        # Merge streams are global (`merge:<id>`), so the id must not repeat across
        # tenants, as a real merge's uuid4 does not.
        merge_id = uuid4()
        try:
            event = EntitiesMerged.build(
                tenant_id=tenant,
                merge_id=merge_id,
                canonical=canonical.model_copy(
                    update={"provenance": [*canonical.provenance, *merged.provenance]}
                ),
                merged_ids=[merged.id],
                reason="fuzz",
                entities_before=before,
                relationships_before=sorted(edges.values(), key=lambda r: str(r.id)),
            )
        except ValidationError:
            # A snapshot the event refuses (none seen since deletes end in a replay) is
            # a merge no consolidation would build: skipped, and counted.
            EXAMPLES[f"skipped-merges-{type(self).__name__}"] += 1
            return
        await self._append(label, merge_stream(merge_id), [event])
        self.merges[label].append(merge_id)

    @rule(label=labels, seed=st.integers(0, 2**32 - 1))
    def merge(self, label: str, seed: int) -> None:
        EXAMPLES[f"ops-{type(self).__name__}"] += 1
        self.run(self._merge(label, seed))

    @rule(label=labels)
    def undo(self, label: str) -> None:
        EXAMPLES[f"ops-{type(self).__name__}"] += 1
        if not self.merges[label]:
            return
        merge_id = self.merges[label].pop()
        event = MergeUndone(tenant_id=TENANTS[label], merge_id=merge_id)
        self.run(self._append(label, merge_stream(merge_id), [event]))

    @rule(label=labels, ids=st.lists(st.sampled_from(IDS), max_size=3, unique=True))
    def delete(self, label: str, ids: list[EntityId]) -> None:
        """Store-level deletes by colliding id, then a purge of the tenant's stores (what
        a projection's clear does): the other tenant's rows stay through both. The log
        then rebuilds the stores (`replay`), so later steps see a graph the log made,
        equal to the one before the deletes."""
        EXAMPLES[f"ops-{type(self).__name__}"] += 1
        tenant, other = TENANTS[label], LABELS[1 - LABELS.index(label)]
        before, mine = self.run(self._snapshot(other)), self.run(self._snapshot(label))
        self.run(self.ws.graph.delete_entities(ids, tenant))
        self.run(self.ws.vectors.delete(ids, tenant))
        assert self.run(self._snapshot(other)) == before, "a delete reached the other tenant"
        self.run(self.ws.graph.delete_by_tenant(tenant))
        self.run(self.ws.vectors.delete_by_tenant(tenant))
        assert self.run(self._snapshot(other)) == before, "a purge reached the other tenant"
        self.run(self.ws.replay())
        assert self.run(self._snapshot(other)) == before, "a replay changed the other tenant"
        assert self.run(self._snapshot(label)) == mine, "a replay differs from the stores"

    async def _snapshot(self, label: str) -> object:
        tenant = TENANTS[label]
        return (
            sorted(e.model_dump_json() for e in await self.ws.graph.list_entities(tenant)),
            await self.ws.vectors.count(tenant),
        )

    @precondition(lambda self: hasattr(self, "ws"))
    @invariant()
    def no_read_returns_the_other_tenants_data(self) -> None:
        EXAMPLES[f"isolation-{type(self).__name__}"] += 1
        for label in LABELS:
            self.run(self._check(label))

    async def _check(self, label: str) -> None:
        tenant, mine = TENANTS[label], f"{label}-person"
        graph, vectors, log = self.ws.graph, self.ws.vectors, self.ws.log

        def own(entities: list[Entity], where: str) -> None:
            for e in entities:
                assert e.tenant_id == tenant, f"{where}: {e.id} of tenant {e.tenant_id}"
                assert e.entity_type == mine, where
                assert e.properties.get("owner") == label, where

        own(await graph.list_entities(tenant), "list_entities")
        own(await graph.get_entities(IDS, tenant), "get_entities")
        for i in IDS[:2]:
            found = await graph.get_entity(i, tenant)
            own([] if found is None else [found], "get_entity")
            own(await graph.neighbours(i, tenant), "neighbours")
            for r in await graph.relationships(i, tenant):
                assert r.tenant_id == tenant, "relationships"
        keys = sorted({k for name in NAMES for k in query_blocking_keys(name)})
        groups = await graph.find_by_blocking_keys(keys, tenant)
        own([e for group in groups.values() for e in group], "find_by_blocking_keys")
        for candidate in await graph.lexical_candidates(keys, tenant, limit=50):
            assert candidate.entity_type == mine, "lexical_candidates"
        for r in await graph.list_relationships(tenant):
            assert r.tenant_id == tenant, "list_relationships"
        assert await graph.count_entities(tenant) == len(await graph.list_entities(tenant))
        for hit in await vectors.search([1.0, 0.5, -0.5, 0.1], tenant, k=20):
            assert hit.entity_type == mine, f"vector search returned a {hit.entity_type}"
        for event_type in ("RecordsImported", "EntitiesMerged"):
            for recorded in await log.read_type(event_type, tenant):
                assert recorded.tenant_id == tenant, "read_type"
        other = LABELS[1 - LABELS.index(label)]
        for stream in sorted(self.streams[other])[:2]:
            assert await log.read_stream(stream, tenant) == [], "read_stream crossed tenants"
            assert await log.stream_version(stream, tenant) == 0, "stream_version crossed"


class MemoryIsolation(Isolation):
    def open_workspace(self) -> Workspace:
        return Workspace.memory(dimension=DIMENSION)


class SqliteIsolation(Isolation):
    def open_workspace(self) -> Workspace:
        # Memory-backed where there is one: the runs are many and short, and what is
        # tested is which rows a query returns, not durability.
        shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
        self.folder = tempfile.TemporaryDirectory(prefix="redstring-isolation-", dir=shm)
        return Workspace.open(Path(self.folder.name) / "w.db", create=True, dimension=DIMENSION)

    def teardown(self) -> None:
        super().teardown()
        if hasattr(self, "folder"):
            self.folder.cleanup()


class PostgresIsolation(Isolation):
    """Each run owns a new database (a workspace owns a whole database, as a SQLite
    workspace owns its file), dropped afterwards."""

    def open_workspace(self) -> Workspace:
        import psycopg
        from psycopg import sql

        url = os.environ[PG_URL]
        self.database = f"iso_{uuid4().hex}"
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(self.database)))
        return Workspace.open(
            url.rsplit("/", 1)[0] + "/" + self.database, create=True, dimension=DIMENSION
        )

    def teardown(self) -> None:
        if hasattr(self, "ws"):
            # The pool's workers live on this run's loop: closed on it, before it ends.
            self.run(release_connections())
        super().teardown()
        if hasattr(self, "database"):
            drop_database(os.environ[PG_URL], self.database)


MACHINE = settings(max_examples=RUNS, stateful_step_count=STEPS, deadline=None, database=None)


def test_memory_adapters_never_return_the_other_tenants_data() -> None:
    run_state_machine_as_test(MemoryIsolation, settings=MACHINE)


def test_sqlite_adapters_never_return_the_other_tenants_data() -> None:
    run_state_machine_as_test(SqliteIsolation, settings=MACHINE)


def test_postgres_adapters_never_return_the_other_tenants_data() -> None:
    """Skipped outside CI without a server; under CI=true a missing one fails it."""
    if not os.environ.get(PG_URL):
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {PG_URL} is not set")
        pytest.skip(f"no PostgreSQL server: {PG_URL} is not set (bash .ci/postgres.sh)")
    run_state_machine_as_test(PostgresIsolation, settings=MACHINE)
