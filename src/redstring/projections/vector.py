"""The vector projection: `EntitiesEmbedded` folded into a `VectorStore`.

After each catch-up, every tenant it wrote to is `prepare`d: the work a large
tenant's first search would do (building or catching up its approximate index) is
paid here, by the writer (`build_graph`, ingest, `replay`), not by a query.

A merge removes the merged-away entities' vectors (search must not return an
alias next to its canonical); an undo puts back each one's latest vector from
before the merge, found by scanning the log up to the merge -- undo is rare, and
the log is the only place old vectors live (the port has no read-by-id).

A changed document's `DocumentRetracted` removes the vectors of the entities its
new text no longer yields.

`model` restricts the projection to one embedding model: vectors of two models
are not comparable, and a store has one dimension.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from redstring.domain.vector import VectorRecord
from redstring.events.base import decode
from redstring.events.embedding import EntitiesEmbedded
from redstring.events.ingest import DocumentRetracted
from redstring.events.merge import EntitiesMerged, MergeUndone
from redstring.projections.base import FreshEvents, Projection, find_merge

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.ids import EntityId, TenantId
    from redstring.domain.log import EventHeader
    from redstring.events.base import DomainEvent
    from redstring.ports.event_log import EventLog
    from redstring.ports.vector_store import VectorStore
    from redstring.projections.checkpoints import CheckpointStore


class VectorProjection(Projection):
    """Keeps a `VectorStore` equal to the fold of the log (see the module docstring)."""

    handles: ClassVar[frozenset[str]] = frozenset(
        cls.event_type for cls in (EntitiesEmbedded, DocumentRetracted, EntitiesMerged, MergeUndone)
    )

    def __init__(
        self,
        vectors: VectorStore,
        log: EventLog,
        checkpoints: CheckpointStore,
        *,
        model: str | None = None,
        name: str = "vector",
        batch_size: int = 256,
        fresh: FreshEvents | None = None,
    ) -> None:
        super().__init__(name, log, checkpoints, batch_size=batch_size, fresh=fresh)
        self.vectors = vectors
        self.model = model
        #: Tenants written since the last `prepare`.
        self._touched: set[TenantId] = set()

    async def catch_up(self) -> int:
        """Fold the new events, then `prepare` each tenant they wrote to (module doc)."""
        read = await super().catch_up()
        touched, self._touched = self._touched, set()
        for tenant_id in sorted(touched, key=str):
            await self.vectors.prepare(tenant_id)
        return read

    async def _clear(self, tenant_id: TenantId) -> None:
        await self.vectors.delete_by_tenant(tenant_id)

    def _wanted(self, event: EntitiesEmbedded) -> bool:
        return self.model is None or event.model == self.model

    async def apply(self, recorded: EventHeader, event: DomainEvent) -> None:
        if isinstance(event, EntitiesEmbedded | DocumentRetracted | EntitiesMerged | MergeUndone):
            self._touched.add(event.tenant_id)
        if isinstance(event, DocumentRetracted):
            await self.vectors.delete(event.removed_entity_ids, event.tenant_id)
        elif isinstance(event, EntitiesEmbedded):
            if self._wanted(event):
                await self.vectors.upsert(_records(event), event.tenant_id)
        elif isinstance(event, EntitiesMerged):
            await self.vectors.delete(event.merged_ids, event.tenant_id)
        elif isinstance(event, MergeUndone):
            merge_recorded, merge = await find_merge(
                self._log,
                event.tenant_id,
                event.merge_id,
                projection=self.name,
                position=recorded.position,
            )
            if merge.canonical_id not in {e.id for e in merge.entities_before}:
                await self.vectors.delete([merge.canonical_id], merge.tenant_id)
            restored = await self._vectors_before(
                merge.tenant_id, set(merge.merged_ids), merge_recorded.position
            )
            if restored:
                await self.vectors.upsert(restored, merge.tenant_id)

    async def _fold_batch(self, batch: Sequence[EventHeader]) -> None:
        """Consecutive merges of one tenant delete their vectors in one call: a vec0
        delete pays a fixed cost per call (~1 ms), and a consolidation appends
        thousands of merges."""
        await self._fold_merge_runs(batch, self._delete_merged)

    async def _delete_merged(self, merges: Sequence[EntitiesMerged]) -> None:
        tenant_id = merges[0].tenant_id
        self._touched.add(tenant_id)
        merged = dict.fromkeys(i for merge in merges for i in merge.merged_ids)
        await self.vectors.delete(list(merged), tenant_id)

    async def _vectors_before(
        self, tenant_id: TenantId, wanted: set[EntityId], before: int
    ) -> list[VectorRecord]:
        latest: dict[EntityId, VectorRecord] = {}
        after = 0
        while after < before and (
            page := await self._log.read_all(after=after, limit=self._batch_size)
        ):
            for recorded in page:
                if recorded.position >= before:
                    break
                if (
                    recorded.tenant_id == tenant_id
                    and recorded.event_type == EntitiesEmbedded.event_type
                ):
                    event = decode(recorded)
                    if isinstance(event, EntitiesEmbedded) and self._wanted(event):
                        for record in _records(event):
                            if record.entity_id in wanted:
                                latest[record.entity_id] = record
            after = page[-1].position
        return list(latest.values())


def _records(event: EntitiesEmbedded) -> list[VectorRecord]:
    return [
        VectorRecord(entity_id=v.entity_id, vector=v.vector, entity_type=v.entity_type)
        for v in event.vectors
    ]
