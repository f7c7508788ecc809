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

A changed document's `DocumentRetracted` withdraws the provenance its superseded
extraction added (`_retract`; the event's docstring says what is deleted).

Merges apply the event's recorded result and undo restores its snapshots; see
`redstring.events.merge`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, TypeVar

from redstring.domain.entity import Entity
from redstring.domain.relationship import Relationship
from redstring.events.ingest import DocumentExtracted, DocumentRetracted, RecordsImported
from redstring.events.merge import EntitiesMerged, MergeUndone, redirect_relationships
from redstring.projections.base import FreshEvents, Projection, find_merge, find_superseded

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.ids import EntityId, RelationshipId, TenantId
    from redstring.domain.log import EventHeader
    from redstring.domain.provenance import Provenance
    from redstring.events.base import DomainEvent
    from redstring.ports.event_log import EventLog
    from redstring.ports.graph_store import GraphStore
    from redstring.projections.checkpoints import CheckpointStore


#: What `combine_observation` combines: an entity or a relationship, never a mix.
Observation = TypeVar("Observation", Entity, Relationship)


class GraphProjection(Projection):
    """Keeps a `GraphStore` equal to the fold of the log (see the module docstring)."""

    handles: ClassVar[frozenset[str]] = frozenset(
        cls.event_type
        for cls in (
            DocumentExtracted,
            RecordsImported,
            DocumentRetracted,
            EntitiesMerged,
            MergeUndone,
        )
    )

    def __init__(
        self,
        graph: GraphStore,
        log: EventLog,
        checkpoints: CheckpointStore,
        *,
        name: str = "graph",
        batch_size: int = 256,
        fresh: FreshEvents | None = None,
    ) -> None:
        super().__init__(name, log, checkpoints, batch_size=batch_size, fresh=fresh)
        self.graph = graph

    async def _clear(self, tenant_id: TenantId) -> None:
        await self.graph.delete_by_tenant(tenant_id)

    async def apply(self, recorded: EventHeader, event: DomainEvent) -> None:
        if isinstance(event, DocumentExtracted | RecordsImported):
            await self._ingest(event.tenant_id, event.entities, event.relationships)
        elif isinstance(event, DocumentRetracted):
            superseded = await find_superseded(self._log, recorded, event, projection=self.name)
            if superseded is not None:
                await self._retract(superseded, set(event.removed_entity_ids))
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

    async def _fold_batch(self, batch: Sequence[EventHeader]) -> None:
        """Consecutive merges of one tenant are folded as one (`_merge_run`)."""
        await self._fold_merge_runs(batch, self._merge_run)

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
        resolved = await self.graph.resolve_many(
            list({e.id: None for e in entities} | dict.fromkeys(endpoints)), tenant
        )
        redirect = {
            entity_id: canonical
            for entity_id, canonical in resolved.items()
            if canonical != entity_id
        }

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

    async def _retract(self, superseded: DocumentExtracted, removed: set[EntityId]) -> None:
        """Withdraw `superseded`'s provenance, through aliases. An entity is deleted only
        when none is left and every superseded id resolving to it is in `removed`: one
        the new text still yields is re-added by the next event, and deleting it would
        drop edges other sources gave it."""
        tenant = superseded.tenant_id
        redirect: dict[EntityId, EntityId] = {}
        withdrawn: dict[EntityId, list[Provenance]] = {}
        removable: dict[EntityId, bool] = {}
        resolved = await self.graph.resolve_many([e.id for e in superseded.entities], tenant)
        for entity in superseded.entities:
            target = resolved[entity.id]
            redirect[entity.id] = target
            withdrawn.setdefault(target, []).extend(entity.provenance)
            removable[target] = removable.get(target, True) and entity.id in removed
        doomed: list[EntityId] = []
        kept: list[Entity] = []
        for entity in await self.graph.get_entities(list(withdrawn), tenant):
            left = [p for p in entity.provenance if p not in withdrawn[entity.id]]
            if not left and removable[entity.id]:
                doomed.append(entity.id)
            elif len(left) != len(entity.provenance):
                kept.append(entity.model_copy(update={"provenance": left}))
        endpoints = [
            endpoint
            for rel in superseded.relationships
            for endpoint in (rel.source_id, rel.target_id)
            if endpoint not in redirect
        ]
        redirect.update(await self.graph.resolve_many(endpoints, tenant))
        edges: dict[RelationshipId, list[Provenance]] = {}
        moved = _redirected(superseded.relationships, redirect, tenant)
        for old, new in moved:
            edges.setdefault(new.id, []).extend(old.provenance)
        dropped_edges: list[RelationshipId] = []
        kept_edges: list[Relationship] = []
        stored_edges: dict[RelationshipId, Relationship] = {}
        for source in dict.fromkeys(new.source_id for _, new in moved):
            stored_edges.update((r.id, r) for r in await self.graph.relationships(source, tenant))
        for edge_id, provenance in edges.items():
            stored_edge = stored_edges.get(edge_id)
            if stored_edge is None:
                continue
            left = [p for p in stored_edge.provenance if p not in provenance]
            if not left:
                dropped_edges.append(edge_id)
            elif len(left) != len(stored_edge.provenance):
                kept_edges.append(stored_edge.model_copy(update={"provenance": left}))
        await self.graph.delete_relationships(dropped_edges, tenant)
        await self.graph.upsert_relationships(kept_edges, tenant)
        await self.graph.delete_entities(doomed, tenant)
        await self.graph.upsert_entities(kept, tenant)

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


def _redirected(
    relationships: Sequence[Relationship],
    redirect: dict[EntityId, EntityId],
    tenant: TenantId,
) -> list[tuple[Relationship, Relationship]]:
    """Each relationship paired with what it became under `redirect` (self-loops,
    which a merge drops, are left out)."""
    pairs = []
    for rel in relationships:
        moved = redirect_relationships([rel], redirect, tenant)
        if moved:
            pairs.append((rel, moved[0]))
    return pairs


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
