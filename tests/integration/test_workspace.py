"""The SQLite workspace: one file, refuses foreign files, projections match the oracle."""

from __future__ import annotations

import itertools
import sqlite3
from typing import TYPE_CHECKING, Any
from uuid import uuid4

import pytest

from redstring.composition.workspace import APPLICATION_ID, SCHEMA_VERSION, Workspace
from redstring.domain.exceptions import NotFoundError, WorkspaceError
from redstring.domain.ids import EntityId, TenantId
from redstring.events import EntitiesMerged, MergeUndone, merge_stream
from redstring.events.ingest import RecordsImported
from redstring.graph.memory import InMemoryGraphStore
from redstring.projections import GraphProjection, InMemoryCheckpointStore, replay
from redstring.storage.sqlite import open_connection
from redstring.testing.factories import make_entity, make_relationship
from redstring.testing.projection_oracle import (
    DIMENSION,
    Scenario,
    store_graph_state,
    vector_mismatches,
)

if TYPE_CHECKING:
    from pathlib import Path


async def fill(ws: Workspace, scenario: Scenario) -> None:
    for append in scenario.appends:
        await ws.append(append.stream_id, append.events, expected_version=append.expected_version)
        await ws.catch_up()


async def test_sqlite_projections_equal_the_oracle_and_survive_reopen(tmp_path: Path) -> None:
    """Catches a SQLite store or checkpoint that loses writes across a close/reopen."""
    scenario = Scenario.generate(21, 50)
    path = tmp_path / "ws.db"
    with Workspace.open(path, dimension=DIMENSION) as ws:
        await fill(ws, scenario)
        assert await store_graph_state(ws.graph, scenario.oracle) == (scenario.oracle.graph_state())
        assert await vector_mismatches(ws.vectors, scenario.oracle) == []
    with Workspace.open(path, create=False) as again:
        await again.catch_up()
        assert await again.graph_projection.position() == await again.log.last_position()
        assert await store_graph_state(again.graph, scenario.oracle) == (
            scenario.oracle.graph_state()
        )
        await again.replay()
        assert await store_graph_state(again.graph, scenario.oracle) == (
            scenario.oracle.graph_state()
        )
        assert await vector_mismatches(again.vectors, scenario.oracle) == []


@pytest.mark.parametrize("seed", [7, 15, 32])
async def test_runs_of_merges_folded_at_once_equal_the_oracle(tmp_path: Path, seed: int) -> None:
    """One catch-up after the whole log: consecutive merges of a tenant (some folding
    an earlier merge's canonical away, or into it, or undone later) are written as
    one run, in the graph and in the vectors. Catches a net effect that differs from
    folding them one by one."""
    scenario = Scenario.generate(seed, 120)
    events = [e for a in scenario.appends for e in a.events]
    chained = [
        (x, y)
        for x, y in itertools.pairwise(events)
        if isinstance(x, EntitiesMerged)
        and isinstance(y, EntitiesMerged)
        and x.tenant_id == y.tenant_id
        and (y.canonical_id == x.canonical_id or x.canonical_id in y.merged_ids)
    ]
    assert chained
    with Workspace.open(tmp_path / "ws.db", dimension=DIMENSION) as ws:
        for append in scenario.appends:
            await ws.append(
                append.stream_id, append.events, expected_version=append.expected_version
            )
        await ws.catch_up()
        assert await store_graph_state(ws.graph, scenario.oracle) == scenario.oracle.graph_state()
        assert await vector_mismatches(ws.vectors, scenario.oracle) == []


async def test_a_batch_merging_an_earlier_canonical_of_the_batch_folds_like_one_by_one(
    tmp_path: Path,
) -> None:
    """Three merges folded in one batch: B into A, then A (the first canonical) into C,
    then D into C; edges among all of them. The graph equals the one-by-one fold
    (memory workspace), undo restores the start, and replay gives the same graph."""
    tenant = TenantId(uuid4())
    a, b, c, d, e = (make_entity(tenant_id=tenant, name=n) for n in "ABCDE")
    ids = [x.id for x in (a, b, c, d, e)]
    edges = [
        make_relationship(a, b),
        make_relationship(b, e),
        make_relationship(a, c, relationship_type="works_with"),
        make_relationship(d, e),
        make_relationship(e, c),
    ]
    imported = RecordsImported(
        tenant_id=tenant, source_id="s", entities=[a, b, c, d, e], relationships=edges
    )
    batched = Workspace.open(tmp_path / "ws.db", dimension=DIMENSION)
    one_by_one = Workspace.memory(dimension=DIMENSION)
    for ws in (batched, one_by_one):
        await ws.append("ingest", [imported], expected_version=0)
        await ws.catch_up()
    start = await _graph(one_by_one, tenant, ids)
    merges: list[EntitiesMerged] = []
    for canonical, merged in ((a, [b]), (c, [a]), (c, [d])):
        involved = [canonical.id, *(m.id for m in merged)]
        before = await one_by_one.graph.get_entities(involved, tenant)
        touching = {
            r.id: r for i in involved for r in await one_by_one.graph.relationships(i, tenant)
        }
        event = EntitiesMerged.build(
            tenant_id=tenant,
            merge_id=uuid4(),
            canonical=canonical.model_copy(update={"properties": {"step": len(merges)}}),
            merged_ids=[m.id for m in merged],
            reason="test",
            entities_before=before,
            relationships_before=sorted(touching.values(), key=lambda r: str(r.id)),
        )
        merges.append(event)
        await one_by_one.append(merge_stream(event.merge_id), [event], expected_version=0)
        await one_by_one.catch_up()
    for event in merges:
        await batched.append(merge_stream(event.merge_id), [event], expected_version=0)
    await batched.catch_up()
    merged = await _graph(one_by_one, tenant, ids)
    assert await _graph(batched, tenant, ids) == merged
    assert sorted(x.name for x in await batched.graph.list_entities(tenant)) == ["C", "E"]
    await batched.replay()
    assert await _graph(batched, tenant, ids) == merged
    for event in reversed(merges):
        undo = MergeUndone(tenant_id=tenant, merge_id=event.merge_id)
        await batched.append(merge_stream(event.merge_id), [undo], expected_version=1)
    await batched.catch_up()
    assert await _graph(batched, tenant, ids) == start
    batched.close()


async def _graph(ws: Workspace, tenant: TenantId, ids: list[EntityId]) -> tuple[object, ...]:
    """Live entities, edges, and what each of `ids` resolves to."""
    return (
        sorted((e.model_dump(mode="json") for e in await ws.graph.list_entities(tenant)), key=str),
        [r.model_dump(mode="json") for r in await ws.graph.list_relationships(tenant)],
        {str(i): str(await ws.graph.resolve(i, tenant)) for i in ids},
    )


async def test_a_failing_batch_rolls_back_store_writes_and_checkpoint_together(
    tmp_path: Path,
) -> None:
    """Atomic checkpoints: a crash mid-batch leaves neither half-folded rows nor a moved
    checkpoint. Catches a store write that commits on its own inside the batch."""
    scenario = Scenario.generate(8, 40)
    path = tmp_path / "ws.db"
    with Workspace.open(path, dimension=DIMENSION) as ws:
        for append in scenario.appends:
            await ws.append(
                append.stream_id, append.events, expected_version=append.expected_version
            )
        real = ws.graph.set_alias
        calls = 0

        async def dying_set_alias(*args: object) -> None:
            nonlocal calls
            calls += 1
            if calls == 2:
                raise KeyboardInterrupt("simulated crash")
            await real(*args)  # type: ignore[arg-type]

        ws.graph.set_alias = dying_set_alias  # type: ignore[method-assign]
        with pytest.raises(KeyboardInterrupt):
            await ws.graph_projection.catch_up()
        assert await ws.graph_projection.position() == 0
        assert await ws.graph.list_entities(scenario.appends[0].events[0].tenant_id) == []
    with Workspace.open(path) as ws:
        await ws.catch_up()
        assert await store_graph_state(ws.graph, scenario.oracle) == (scenario.oracle.graph_state())


async def test_replay_into_fresh_memory_stores_equals_the_sqlite_stores(tmp_path: Path) -> None:
    scenario = Scenario.generate(4, 40)
    with Workspace.open(tmp_path / "ws.db", dimension=DIMENSION) as ws:
        await fill(ws, scenario)
        fresh = InMemoryGraphStore()
        await replay(ws.log, [GraphProjection(fresh, ws.log, InMemoryCheckpointStore())])
        assert await store_graph_state(fresh, scenario.oracle) == await store_graph_state(
            ws.graph, scenario.oracle
        )


def test_a_new_workspace_is_marked_as_redstrings(tmp_path: Path) -> None:
    Workspace.open(tmp_path / "ws.db").close()
    conn = open_connection(tmp_path / "ws.db")
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    meta = dict(conn.execute("SELECT key, value FROM redstring_meta").fetchall())
    assert int(meta["schema_version"]) == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_a_text_file_is_refused_and_left_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 20)
    before = path.read_bytes()
    with pytest.raises(WorkspaceError, match="not a SQLite database"):
        Workspace.open(path)
    assert path.read_bytes() == before


def test_another_applications_sqlite_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER)")
    conn.commit()
    conn.close()
    with pytest.raises(WorkspaceError, match="another application"):
        Workspace.open(path)


def test_a_workspace_from_a_newer_schema_is_refused_with_an_upgrade_hint(tmp_path: Path) -> None:
    path = tmp_path / "ws.db"
    Workspace.open(path).close()
    conn = open_connection(path)
    conn.execute("UPDATE redstring_meta SET value = ? WHERE key = 'schema_version'", ("99",))
    conn.close()
    with pytest.raises(WorkspaceError, match=r"newer redstring.*upgrade"):
        Workspace.open(path)


def test_opening_a_missing_file_without_create_does_not_make_one(tmp_path: Path) -> None:
    path = tmp_path / "absent.db"
    with pytest.raises(WorkspaceError, match="create=True"):
        Workspace.open(path, create=False)
    assert not path.exists()
    with pytest.raises(WorkspaceError, match="directory"):
        Workspace.open(tmp_path)


def test_tenants_and_settings_survive_reopening(tmp_path: Path) -> None:
    """The CLI names tenants; a name registered once must resolve after a reopen,
    and an unknown one must be refused with the known names listed."""
    path = tmp_path / "w.db"
    with Workspace.open(path) as workspace:
        acme = workspace.register_tenant("acme")
        workspace.set_setting("embedding_model", "fake-hash-384")
    with Workspace.open(path, create=False) as workspace:
        assert workspace.tenant("acme") == acme
        assert workspace.tenant_names() == ["acme"]
        assert workspace.setting("embedding_model") == "fake-hash-384"
        with pytest.raises(NotFoundError, match="known: acme"):
            workspace.tenant("globex")


def test_a_memory_workspace_keeps_tenants_too() -> None:
    workspace = Workspace.memory()
    workspace.register_tenant("b")
    workspace.register_tenant("a")
    assert workspace.tenant_names() == ["a", "b"]
    with pytest.raises(NotFoundError):
        workspace.tenant("c")


async def test_an_atomic_block_that_fails_commits_none_of_its_appends(tmp_path: Path) -> None:
    """Catches `Workspace.atomic` committing appends one by one: a failure inside the
    block leaves the log and the projections as they were before it, even after the
    file is reopened; a block that completes commits everything."""
    scenario = Scenario.generate(5, 12)
    path = tmp_path / "ws.db"
    half = len(scenario.appends) // 2

    async def crash_inside(ws: Workspace) -> None:
        with ws.atomic():
            for append in scenario.appends[:half]:
                await ws.append(
                    append.stream_id, append.events, expected_version=append.expected_version
                )
                await ws.catch_up()
            raise RuntimeError("crash inside the block")

    with Workspace.open(path, dimension=DIMENSION) as ws:
        with pytest.raises(RuntimeError, match="crash inside"):
            await crash_inside(ws)
        assert await ws.log.last_position() == 0
    with Workspace.open(path, create=False) as again:
        assert await again.log.last_position() == 0
        with again.atomic():
            await fill(again, scenario)
    with Workspace.open(path, create=False) as reopened:
        assert await store_graph_state(reopened.graph, scenario.oracle) == (
            scenario.oracle.graph_state()
        )


async def test_an_append_rolled_back_is_not_folded_from_memory(tmp_path: Path) -> None:
    """Live projections fold the events this process appended without decoding them
    again; a rolled-back append's stream version is then taken by another writer's
    event, and the next catch-up must fold that one, not the rolled-back event."""
    tenant = TenantId(uuid4())

    def imported(name: str) -> RecordsImported:
        entity = make_entity(tenant_id=tenant, name=name)
        return RecordsImported(tenant_id=tenant, source_id="s", entities=[entity])

    async def abandoned(ws: Workspace) -> None:
        with ws.atomic():
            await ws.append("records:s", [imported("Rolled Back")], expected_version=0)
            raise RuntimeError("abandon the transaction")

    with (
        Workspace.open(tmp_path / "ws.db", dimension=DIMENSION) as ws,
        Workspace.open(tmp_path / "ws.db") as other,
    ):
        with pytest.raises(RuntimeError, match="abandon"):
            await abandoned(ws)
        await other.append("records:s", [imported("Kept")], expected_version=0)
        await ws.catch_up()
        assert [e.name for e in await ws.graph.list_entities(tenant)] == ["Kept"]


async def test_live_projections_do_not_decode_what_this_process_appended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Decoding re-validates every entity of an event once per projection; an event
    appended here is folded from the typed object it was built as."""
    from redstring.projections import base

    decoded: list[str] = []
    real = base.decode

    def counting(recorded: Any, tenant_id: Any = None) -> Any:
        decoded.append(recorded.event_type)
        return real(recorded, tenant_id)

    monkeypatch.setattr(base, "decode", counting)
    tenant = TenantId(uuid4())
    entity = make_entity(tenant_id=tenant, name="Ada")
    with Workspace.open(tmp_path / "ws.db", dimension=DIMENSION) as ws:
        event = RecordsImported(tenant_id=tenant, source_id="s", entities=[entity])
        await ws.append("records:s", [event], expected_version=0)
        await ws.catch_up()
        assert decoded == []
        assert [e.name for e in await ws.graph.list_entities(tenant)] == ["Ada"]
        await ws.replay()
        assert decoded == ["RecordsImported"]
