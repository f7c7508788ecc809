"""Projections fold the log into stores exactly as an independent oracle does."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from redstring.composition.workspace import Workspace
from redstring.domain.exceptions import ProjectionError
from redstring.domain.log import NewEvent
from redstring.eventlog.memory import InMemoryEventLog
from redstring.events import MergeUndone, merge_stream
from redstring.graph.memory import InMemoryGraphStore
from redstring.projections import GraphProjection, InMemoryCheckpointStore, replay
from redstring.projections.base import FreshEvents
from redstring.testing.projection_oracle import (
    DIMENSION,
    TENANTS,
    Scenario,
    store_graph_state,
    vector_mismatches,
)

if TYPE_CHECKING:
    from redstring.domain.entity import Entity
    from redstring.domain.ids import EntityId, TenantId
    from redstring.domain.log import EventHeader, RecordedEvent


async def ingest(ws: Workspace, scenario: Scenario, *, catch_up_every: int = 1) -> None:
    for n, append in enumerate(scenario.appends, start=1):
        await ws.append(append.stream_id, append.events, expected_version=append.expected_version)
        if n % catch_up_every == 0:
            await ws.catch_up()
    await ws.catch_up()


def kinds(scenario: Scenario) -> set[str]:
    return {type(e).__name__ for a in scenario.appends for e in a.events}


@pytest.mark.parametrize("seed", range(6))
async def test_live_projections_equal_the_oracle_fold(seed: int) -> None:
    """Catches any fold rule that drifts from the stated semantics (alias resolution on
    ingest, observation combining, merge redirect, exact undo, vector restore)."""
    scenario = Scenario.generate(seed, 60)
    assert {"EntitiesMerged", "MergeUndone", "EntitiesEmbedded"} <= kinds(scenario)
    ws = Workspace.memory(dimension=DIMENSION)
    await ingest(ws, scenario, catch_up_every=3)
    assert await store_graph_state(ws.graph, scenario.oracle) == scenario.oracle.graph_state()
    assert await vector_mismatches(ws.vectors, scenario.oracle) == []


async def test_replay_rebuilds_the_same_stores_and_refolds_nothing_twice() -> None:
    """Catches a replay that leaves stale rows behind (no clear) or misses events."""
    scenario = Scenario.generate(11, 60)
    ws = Workspace.memory(dimension=DIMENSION)
    await ingest(ws, scenario)
    live = await store_graph_state(ws.graph, scenario.oracle)
    # Stale junk the replay must clear: an entity no event ever produced.
    await ws.graph.upsert_entities([_stray(TENANTS[0])], TENANTS[0])
    await ws.replay()
    assert await store_graph_state(ws.graph, scenario.oracle) == live
    assert await vector_mismatches(ws.vectors, scenario.oracle) == []
    assert await ws.graph_projection.position() == await ws.log.last_position()


async def test_a_fresh_store_folded_from_the_log_equals_the_live_one() -> None:
    """Replay into brand-new stores: the log alone (no model, no old store) suffices."""
    scenario = Scenario.generate(5, 50)
    ws = Workspace.memory(dimension=DIMENSION)
    await ingest(ws, scenario)
    fresh = InMemoryGraphStore()
    await replay(ws.log, [GraphProjection(fresh, ws.log, InMemoryCheckpointStore())])
    assert await store_graph_state(fresh, scenario.oracle) == await store_graph_state(
        ws.graph, scenario.oracle
    )


class CrashingGraph(InMemoryGraphStore):
    """A graph store that dies after a given number of writes, mid-event."""

    def __init__(self, writes_left: int) -> None:
        super().__init__()
        self.writes_left = writes_left

    def _tick(self) -> None:
        self.writes_left -= 1
        if self.writes_left < 0:
            raise KeyboardInterrupt("simulated crash")

    async def upsert_entities(self, entities: Any, tenant_id: Any) -> None:
        self._tick()
        await super().upsert_entities(entities, tenant_id)

    async def delete_entities(self, entity_ids: Any, tenant_id: Any) -> None:
        self._tick()
        await super().delete_entities(entity_ids, tenant_id)

    async def set_alias(self, alias_id: Any, canonical_id: Any, tenant_id: Any) -> None:
        self._tick()
        await super().set_alias(alias_id, canonical_id, tenant_id)

    async def upsert_relationships(self, relationships: Any, tenant_id: Any) -> None:
        self._tick()
        await super().upsert_relationships(relationships, tenant_id)


@pytest.mark.parametrize("crash_after", [0, 3, 17, 40, 77])
async def test_catch_up_after_a_crash_mid_event_converges_to_the_oracle(crash_after: int) -> None:
    """Non-atomic checkpoints: the interrupted event is re-applied on restart, so its fold
    must be idempotent. Catches a checkpoint saved before the event's writes, or a fold
    that double-counts on re-application."""
    scenario = Scenario.generate(3, 60)
    ws = Workspace.memory(dimension=DIMENSION)
    for append in scenario.appends:
        await ws.append(append.stream_id, append.events, expected_version=append.expected_version)
    graph = CrashingGraph(crash_after)
    checkpoints = InMemoryCheckpointStore()
    crashed = GraphProjection(graph, ws.log, checkpoints)
    with pytest.raises(KeyboardInterrupt):
        await crashed.catch_up()
    assert 0 <= await crashed.position() < await ws.log.last_position()
    graph.writes_left = 10**9
    restarted = GraphProjection(graph, ws.log, checkpoints)
    await restarted.catch_up()
    assert await store_graph_state(graph, scenario.oracle) == scenario.oracle.graph_state()


async def test_an_undo_of_an_unknown_merge_stops_the_projection_at_that_position() -> None:
    """Catches a projection that skips a bad event silently (and moves its checkpoint)."""
    from uuid import uuid4

    ws = Workspace.memory(dimension=DIMENSION)
    merge_id = uuid4()
    stray = MergeUndone(tenant_id=TENANTS[0], merge_id=merge_id)
    await ws.append(merge_stream(merge_id), [stray], expected_version=0)
    with pytest.raises(ProjectionError, match="unknown merge") as caught:
        await ws.catch_up()
    assert caught.value.position == 1
    assert await ws.graph_projection.position() == 0


async def test_events_a_projection_does_not_handle_only_advance_its_checkpoint() -> None:
    """Another projection's event types (or future ones) must not block this one."""
    ws = Workspace.memory(dimension=DIMENSION)
    other = NewEvent(event_type="ChunkStored", schema_version=3, payload={"x": 1})
    await ws.log.append("chunks", [other], tenant_id=TENANTS[0], expected_version=0)
    await ws.catch_up()
    assert await ws.graph_projection.position() == 1
    assert await ws.vector_projection.position() == 1


class CountingLog(InMemoryEventLog):
    """Counts the reads that return payloads, and the reads of headers that found some."""

    def __init__(self) -> None:
        super().__init__()
        self.full_reads = 0
        self.header_batches = 0

    async def read_all(self, *, after: int = 0, limit: int | None = None) -> list[RecordedEvent]:
        self.full_reads += 1
        return await super().read_all(after=after, limit=limit)

    async def read_headers(self, *, after: int = 0, limit: int | None = None) -> list[EventHeader]:
        headers = await super().read_headers(after=after, limit=limit)
        self.header_batches += bool(headers)
        return headers


async def _append_all(log: CountingLog, scenario: Scenario, fresh: FreshEvents | None) -> None:
    """The scenario's appends into `log`; into `fresh` too when given (this process's)."""
    for append in scenario.appends:
        envelopes = [event.to_new_event() for event in append.events]
        tenant = append.events[0].tenant_id
        await log.append(
            append.stream_id, envelopes, tenant_id=tenant, expected_version=append.expected_version
        )
        if fresh is not None:
            fresh.add(append.stream_id, append.expected_version + 1, append.events)


async def test_projections_of_one_catch_up_read_each_batch_of_headers_once() -> None:
    """Catches projections that each read the batches the first one read (a merge-heavy
    consolidation's headers read once per projection)."""
    scenario = Scenario.generate(5, 60)
    log, fresh = CountingLog(), FreshEvents()
    graphs = [InMemoryGraphStore(), InMemoryGraphStore()]
    projections = [
        GraphProjection(graph, log, InMemoryCheckpointStore(), name=f"g{k}", batch_size=8,
                        fresh=fresh)
        for k, graph in enumerate(graphs)
    ]  # fmt: skip
    await _append_all(log, scenario, fresh)
    for projection in projections:
        await projection.catch_up()
    batches = -(-await log.last_position() // 8)
    assert log.header_batches == batches
    for graph in graphs:
        assert await store_graph_state(graph, scenario.oracle) == scenario.oracle.graph_state()


async def test_a_projection_folds_what_another_writer_appended_after_its_last_read() -> None:
    """Catches a kept batch of headers that hides an event appended since it was read:
    the empty read that ended a catch-up is asked again by the next one."""
    first = Scenario.generate(6, 60)
    log, fresh = CountingLog(), FreshEvents()
    graph = InMemoryGraphStore()
    projection = GraphProjection(graph, log, InMemoryCheckpointStore(), batch_size=8, fresh=fresh)
    await _append_all(log, first, fresh)
    await projection.catch_up()
    # Another writer (not this process: `fresh` hears nothing) appends more.
    stream = f"other-{first.appends[0].stream_id}"
    event = first.appends[0].events[0]
    await log.append(stream, [event.to_new_event()], tenant_id=event.tenant_id, expected_version=0)
    assert await projection.catch_up() == 1
    assert await projection.position() == await log.last_position()


@pytest.mark.parametrize("fresh_share", [1.0, 0.5, 0.0])
async def test_fresh_batches_fold_from_headers_and_the_others_from_payloads(
    fresh_share: float,
) -> None:
    """Catches a projection that reads payloads it holds typed (the cost this saves), and
    one that folds from headers an event this process did not append (another writer's,
    whose payload it must read)."""
    scenario = Scenario.generate(3, 60)
    log = CountingLog()
    fresh = FreshEvents()
    graph = InMemoryGraphStore()
    projection = GraphProjection(graph, log, InMemoryCheckpointStore(), batch_size=8, fresh=fresh)
    mine = int(len(scenario.appends) * fresh_share)
    for n, append in enumerate(scenario.appends):
        envelopes = [event.to_new_event() for event in append.events]
        tenant = append.events[0].tenant_id
        await log.append(
            append.stream_id, envelopes, tenant_id=tenant, expected_version=append.expected_version
        )
        if n < mine:
            fresh.add(append.stream_id, append.expected_version + 1, append.events)
    await projection.catch_up()
    assert await store_graph_state(graph, scenario.oracle) == scenario.oracle.graph_state()
    if fresh_share == 1.0:
        assert log.full_reads == 0
    else:
        assert log.full_reads > 0


def _stray(tenant: TenantId) -> Entity:
    from uuid import uuid4

    from redstring.domain.entity import Entity

    return Entity(id=_id(uuid4()), tenant_id=tenant, name="Stray", entity_type="person")


def _id(value: Any) -> EntityId:
    from redstring.domain.ids import EntityId

    return EntityId(value)
