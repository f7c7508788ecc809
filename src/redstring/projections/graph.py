"""The graph projection: extraction, import and merge events folded into a `GraphStore`.

Ingestion (`DocumentExtracted`, `RecordsImported`):

- Ids are resolved through the store's aliases first, so a document mentioning an
  entity that was merged away adds to its canonical instead of resurrecting the
  duplicate. Edges are redirected the same way a merge redirects them.
- An entity or edge already in the store is *combined* with the new observation
  rather than overwritten: the stored name and type stay, confidence is the
  maximum, properties are updated by the newer observation, provenance is the
  union. Without this, the second document mentioning "Ada Lovelace" would erase
  the first one's provenance. Each of these steps is idempotent, which the fold
  loop relies on for non-atomic checkpoint stores.

Merges apply the event's recorded result and undo restores its snapshots; see
`redstring.events.merge`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, TypeVar

from redstring.domain.entity import Entity
from redstring.domain.exceptions import ProjectionError, RedstringError
from redstring.domain.relationship import Relationship
from redstring.events.base import decode
from redstring.events.ingest import DocumentExtracted, RecordsImported
from redstring.events.merge import EntitiesMerged, MergeUndone, redirect_relationships
from redstring.projections.base import Projection, find_merge

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.ids import EntityId, RelationshipId, TenantId
    from redstring.domain.log import RecordedEvent
    from redstring.events.base import DomainEvent
    from redstring.ports.event_log import EventLog
    from redstring.ports.graph_store import GraphStore
    from redstring.projections.checkpoints import CheckpointStore


#: What `combine_observation` combines: an entity or a relationship, never a mix.
Observation = TypeVar("Observation", Entity, Relationship)


class GraphProjection(Projection):
    """Keeps a `GraphStore` equal to the fold of the log (see the module docstring)."""

    handles: ClassVar[frozenset[str]] = frozenset(
        cls.event_type for cls in (DocumentExtracted, RecordsImported, EntitiesMerged, MergeUndone)
    )

    def __init__(
        self,
        graph: GraphStore,
        log: EventLog,
        checkpoints: CheckpointStore,
        *,
        name: str = "graph",
        batch_size: int = 256,
    ) -> None:
        super().__init__(name, log, checkpoints, batch_size=batch_size)
        self.graph = graph

    async def _clear(self, tenant_id: TenantId) -> None:
        await self.graph.delete_by_tenant(tenant_id)

    async def apply(self, recorded: RecordedEvent, event: DomainEvent) -> None:
        if isinstance(event, DocumentExtracted | RecordsImported):
            await self._ingest(event.tenant_id, event.entities, event.relationships)
        elif isinstance(event, EntitiesMerged):
            await self._merge(event)
        elif isinstance(event, MergeUndone):
            _, merge = await find_merge(
                self._log,
                event.tenant_id,
                event.merge_id,
                projection=self.name,
                position=recorded.position,
            )
            await self._undo(merge)

    async def _fold_batch(self, batch: Sequence[RecordedEvent]) -> None:
        """Consecutive merges of one tenant are folded as one (`_merge_run`): a
        consolidation appends them by the hundred, and one write per kind instead of
        five per merge is most of its cost. Everything else folds one by one."""
        run: list[tuple[RecordedEvent, EntitiesMerged]] = []
        for recorded in batch:
            if recorded.event_type not in self.handles:
                continue
            if recorded.event_type == EntitiesMerged.event_type:
                try:
                    event = decode(recorded)
                except RedstringError as exc:
                    raise ProjectionError(self.name, recorded.position, str(exc)) from exc
                if isinstance(event, EntitiesMerged):
                    if run and run[0][1].tenant_id != event.tenant_id:
                        await self._fold_run(run)
                        run = []
                    run.append((recorded, event))
                    continue
            await self._fold_run(run)
            run = []
            await self._fold(recorded)
        await self._fold_run(run)

    async def _fold_run(self, run: Sequence[tuple[RecordedEvent, EntitiesMerged]]) -> None:
        if not run:
            return
        try:
            await self._merge_run([event for _, event in run])
        except RedstringError as exc:
            raise ProjectionError(self.name, run[0][0].position, str(exc)) from exc

    async def _merge_run(self, merges: Sequence[EntitiesMerged]) -> None:
        """The net effect of folding `merges` (one tenant) in order with `_merge`,
        written with one call per kind: relationships deleted, entities deleted,
        entities upserted, aliases, relationships upserted. A later merge may fold an
        earlier one's canonical away: the net sets are computed in event order. Each
        merge's `relationships_before` holds every edge touching its entities (the
        snapshot `EntitiesMerged.build` is given), so an edge an earlier merge wrote
        is deleted by the later merge that names it, not by `delete_entities`."""
        if len(merges) == 1:
            await self._merge(merges[0])
            return
        tenant = merges[0].tenant_id
        dropped_edges: dict[RelationshipId, None] = {}
        edges: dict[RelationshipId, Relationship] = {}
        dropped: dict[EntityId, None] = {}
        kept: dict[EntityId, Entity] = {}
        aliases: list[tuple[EntityId, EntityId]] = []
        for event in merges:
            for rel in event.relationships_before:
                dropped_edges[rel.id] = None
                edges.pop(rel.id, None)
            for merged_id in event.merged_ids:
                dropped[merged_id] = None
                kept.pop(merged_id, None)
                aliases.append((merged_id, event.canonical_id))
            kept[event.canonical_id] = event.canonical
            edges.update((rel.id, rel) for rel in event.relationships_after)
        await self.graph.delete_relationships(list(dropped_edges), tenant)
        await self.graph.delete_entities(list(dropped), tenant)
        await self.graph.upsert_entities(list(kept.values()), tenant)
        await self.graph.set_aliases(aliases, tenant)
        await self.graph.upsert_relationships(list(edges.values()), tenant)

    async def _ingest(
        self, tenant: TenantId, entities: Sequence[Entity], relationships: Sequence[Relationship]
    ) -> None:
        endpoints = {r.source_id for r in relationships} | {r.target_id for r in relationships}
        redirect: dict[EntityId, EntityId] = {}
        for entity_id in {e.id for e in entities} | endpoints:
            canonical = await self.graph.resolve(entity_id, tenant)
            if canonical != entity_id:
                redirect[entity_id] = canonical

        targets = [redirect.get(e.id, e.id) for e in entities]
        stored = {e.id: e for e in await self.graph.get_entities(targets, tenant)}
        combined: dict[EntityId, Entity] = {}
        for entity, target in zip(entities, targets, strict=True):
            base = combined.get(target) or stored.get(target)
            combined[target] = entity if base is None else combine_observation(base, entity)
        if combined:
            await self.graph.upsert_entities(list(combined.values()), tenant)

        edges = []
        touching: dict[EntityId, dict[RelationshipId, Relationship]] = {}
        for rel in redirect_relationships(relationships, redirect, tenant):
            if rel.source_id not in touching:
                found = await self.graph.relationships(rel.source_id, tenant)
                touching[rel.source_id] = {r.id: r for r in found}
            base_rel = touching[rel.source_id].get(rel.id)
            edges.append(rel if base_rel is None else combine_observation(base_rel, rel))
        if edges:
            await self.graph.upsert_relationships(edges, tenant)

    async def _merge(self, event: EntitiesMerged) -> None:
        tenant = event.tenant_id
        await self.graph.delete_relationships([r.id for r in event.relationships_before], tenant)
        await self.graph.delete_entities(event.merged_ids, tenant)
        await self.graph.upsert_entities([event.canonical], tenant)
        for merged_id in event.merged_ids:
            await self.graph.set_alias(merged_id, event.canonical_id, tenant)
        await self.graph.upsert_relationships(event.relationships_after, tenant)

    async def _undo(self, merge: EntitiesMerged) -> None:
        tenant = merge.tenant_id
        await self.graph.delete_relationships([r.id for r in merge.relationships_after], tenant)
        for merged_id in merge.merged_ids:
            await self.graph.remove_alias(merged_id, tenant)
        if merge.canonical_id not in {e.id for e in merge.entities_before}:
            # The merge created the canonical; before it, there was none.
            await self.graph.delete_entities([merge.canonical_id], tenant)
        await self.graph.upsert_entities(merge.entities_before, tenant)
        await self.graph.upsert_relationships(merge.relationships_before, tenant)


def combine_observation(stored: Observation, new: Observation) -> Observation:
    """`stored` (entity or relationship) with `new`'s observation added (see the module
    docstring). Idempotent."""
    return stored.model_copy(
        update={
            "confidence": max(stored.confidence, new.confidence),
            "properties": {**stored.properties, **new.properties},
            "provenance": [
                *stored.provenance,
                *(p for p in new.provenance if p not in stored.provenance),
            ],
        },
        deep=True,
    )
