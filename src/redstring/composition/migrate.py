"""Copy a workspace's event log into another workspace and replay it there.

The log is the workspace (everything else is a projection of it), so moving from
SQLite to PostgreSQL -- or back -- is: copy every event, in log order, with its
stream and version; fold it into the target's stores; check the counts. The target
must be empty: appending one workspace's streams after another's would interleave
two histories. Settings (the embedder, the registered tenants) are copied too,
since they live beside the log, not in it. No model is called: events carry the
extractions and embeddings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from redstring.domain.exceptions import InvalidInputError, WorkspaceError
from redstring.domain.log import NewEvent
from redstring.projections.replay import tenants_in_log

if TYPE_CHECKING:
    from redstring.composition.workspace import Workspace
    from redstring.domain.ids import TenantId
    from redstring.domain.log import RecordedEvent

#: Events read from the source log per page.
PAGE = 1024


@dataclass(frozen=True)
class TenantCounts:
    entities: int
    relationships: int
    vectors: int
    chunks: int


@dataclass(frozen=True)
class Migration:
    """What was copied, and the per-tenant counts on both sides (equal, or it raised)."""

    events: int
    counts: dict[TenantId, TenantCounts]


async def counts(workspace: Workspace, tenant_id: TenantId) -> TenantCounts:
    """The figures a migration compares: one tenant's stores, read after a catch-up."""
    return TenantCounts(
        entities=await workspace.graph.count_entities(tenant_id),
        relationships=len(await workspace.graph.list_relationships(tenant_id)),
        vectors=await workspace.vectors.count(tenant_id),
        chunks=await workspace.chunks.count(tenant_id),
    )


async def migrate(source: Workspace, target: Workspace) -> Migration:
    """Copy `source`'s log into the empty `target`, fold it, and compare every tenant's
    counts; `WorkspaceError` names the first figure that differs."""
    if await target.log.last_position() != 0:
        raise InvalidInputError("the target workspace is not empty: migrate into a new one")
    if target.vectors.dimension != source.vectors.dimension:
        raise InvalidInputError(
            f"the target's vectors are {target.vectors.dimension}-wide, the source's "
            f"{source.vectors.dimension}: create the target with the source's dimension"
        )
    for key in ("embedder",):
        value = source.setting(key)
        if value is not None:
            target.set_setting(key, value)
    for name in source.tenant_names():
        target.register_tenant(name)
    copied, after = 0, 0
    while page := await source.log.read_all(after=after, limit=PAGE):
        copied += await _copy(target, page)
        after = page[-1].position
    await source.catch_up()
    await target.catch_up()
    figures: dict[TenantId, TenantCounts] = {}
    for tenant_id in sorted(await tenants_in_log(source.log), key=str):
        before, now = await counts(source, tenant_id), await counts(target, tenant_id)
        if before != now:
            raise WorkspaceError(f"tenant {tenant_id}: the source holds {before}, the copy {now}")
        figures[tenant_id] = now
    return Migration(events=copied, counts=figures)


async def _copy(target: Workspace, page: list[RecordedEvent]) -> int:
    """Append `page` in order, a run of one stream's consecutive events at a time."""
    run: list[RecordedEvent] = []

    async def flush() -> None:
        if run:
            first = run[0]
            events = [_new_event(recorded) for recorded in run]
            await target.log.append(
                first.stream_id,
                events,
                tenant_id=first.tenant_id,
                expected_version=first.version - 1,
            )
            run.clear()

    for recorded in page:
        if run and recorded.stream_id != run[-1].stream_id:
            await flush()
        run.append(recorded)
    await flush()
    return len(page)


def _new_event(recorded: RecordedEvent) -> NewEvent:
    """Not re-validated: the source log validated it on the way in (as its reads assume)."""
    return NewEvent.model_construct(
        event_type=recorded.event_type,
        schema_version=recorded.schema_version,
        payload=recorded.payload,
    )
