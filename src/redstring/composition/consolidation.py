"""`Consolidator`: entity resolution turned into reversible merge events.

It lives in `composition` because it holds the resolution engine
(`consolidation`), the workspace's stores and log (`graph`, `eventlog`,
`projections`) and optionally an LLM adjudicator together; `consolidation` may
import only ports and the domain.

Each merge decision becomes one `EntitiesMerged` event on its own stream,
carrying the before-snapshots that make `MergeUndone` exact. Merges commit in
large groups (`MERGES_PER_COMMIT`): a crash loses at most the uncommitted group,
which the next run plans again. Why large: a group's merged entities are spread
over the whole id and key space, so each commit rewrites most pages of the graph
tables however few merges it holds (people-50k: 325k pages written in commits of
200 merges, 49k in one). Inside a commit, every `MERGES_PER_FOLD` merges are folded
by one catch-up (the graph projection writes a run of merges at once); clusters are
disjoint, but an edge between two clusters changes when the first merges, so each
snapshot applies the batch's unfolded redirects to the stored edges (`_Unfolded`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast
from uuid import UUID, uuid4

from redstring.consolidation.engine import resolve, resolve_incremental
from redstring.consolidation.heap import kept_to_the_end, run_heap
from redstring.consolidation.record_model import TrainedModel
from redstring.domain.exceptions import ConcurrencyError, NotFoundError
from redstring.domain.ids import id_order
from redstring.events.base import decode
from redstring.events.merge import EntitiesMerged, MergeUndone
from redstring.events.resolution import ResolutionModelTrained
from redstring.events.streams import merge_stream, model_stream

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from redstring.composition.workspace import Workspace
    from redstring.consolidation.adjudication import Adjudicator
    from redstring.consolidation.engine import MergeDecision, ResolutionPlan
    from redstring.domain.entity import Entity
    from redstring.domain.ids import EntityId, RelationshipId, TenantId
    from redstring.domain.relationship import Relationship
    from redstring.events.base import DomainEvent


#: Merges written (and projected) per transaction (see the module docstring).
MERGES_PER_COMMIT = 5_000
#: Merges appended before the projections fold them (one catch-up): bounds the typed
#: events held for the projections (`FreshEvents`) and paces progress reports.
MERGES_PER_FOLD = 200


@dataclass
class ConsolidationReport:
    """What one consolidation did, with counts per band."""

    entities: int = 0
    #: Scored candidate pairs per band: merge, grey, distinct (and type_incompatible).
    bands: dict[str, int] = field(default_factory=dict)
    #: Grey pairs decided by the adjudicator, by verdict.
    adjudicated: dict[str, int] = field(default_factory=dict)
    #: Grey pairs kept apart (no adjudicator, or it said no or did not know).
    grey_kept_apart: int = 0
    merges: int = 0
    merged_entities: int = 0
    merge_ids: list[UUID] = field(default_factory=list)
    candidate_pairs: int = 0
    #: Per record entity type: field -> kind used, and property -> why it was left out.
    fields: dict[str, dict[str, str]] = field(default_factory=dict)
    left_out: dict[str, dict[str, str]] = field(default_factory=dict)
    #: Record entity types whose model was trained by this run (and logged), and
    #: those scored with the model a previous run logged.
    models_trained: list[str] = field(default_factory=list)
    models_reused: list[str] = field(default_factory=list)
    #: Per record entity type: the log-odds from which a pair may start a merge,
    #: read from the records' own scores (None: the scores set no bar).
    start_bars: dict[str, float | None] = field(default_factory=dict)
    #: Person types whose scores showed no two groups: their bar is the cautious
    #: one (`record_model.unseparated_bar`), not read from the records.
    unseparated: list[str] = field(default_factory=list)
    #: Per record entity type: the log-odds from which two records that have joined
    #: nothing may merge, even odds under the match rate among all pairs
    #: (`record_model.lone_bar`).
    lone_bars: dict[str, float] = field(default_factory=dict)
    #: Per record entity type: each blocking rule's match rate among the pairs it
    #: found first, read without its own fields (`record_model._within_rules`): a
    #: pair starts a merge only at even odds among its rule's pairs.
    rule_rates: dict[str, dict[str, float]] = field(default_factory=dict)
    #: Per record entity type: fields found to travel together (a household's street,
    #: town and phone), whose agreements count once.
    bundles: dict[str, list[list[str]]] = field(default_factory=dict)
    #: Per record entity type: pairs of fields that strangers agree on together far
    #: more often than apart (a postcode and its town), whose joint agreement counts
    #: less than the sum (`record_model.Dependence`).
    dependent: dict[str, list[list[str]]] = field(default_factory=dict)


class Consolidator:
    """Resolve a tenant's duplicates (all of it, or a batch of new entities)."""

    def __init__(self, workspace: Workspace, *, adjudicator: Adjudicator | None = None) -> None:
        self._workspace = workspace
        self._adjudicator = adjudicator

    async def consolidate(
        self,
        tenant_id: TenantId,
        *,
        entity_types: Sequence[str] | None = None,
        progress: Callable[[int, int], None] | None = None,
        field_overrides: Mapping[str, str] | None = None,
    ) -> ConsolidationReport:
        """Resolve every live entity of the tenant (optionally of some types only).

        `field_overrides` sets a record property's kind (`{"born": "date"}`, or
        `"ignore"`), where detection from the values guessed wrong.
        """
        graph = self._workspace.graph
        with run_heap():
            seen = await self._workspace.log.last_position()
            with kept_to_the_end():
                entities = await graph.list_entities(tenant_id, entity_types=entity_types)
            neighbours = await self._neighbours(tenant_id)
            plan = await resolve(
                entities,
                neighbours=neighbours,
                adjudicator=self._adjudicator,
                field_overrides=field_overrides,
                separate=await self.undone(tenant_id),
                members=await self.made_of(tenant_id),
            )
            report = await self._apply(
                tenant_id, entities, plan, progress, seen, edgeless=not neighbours
            )
            del entities, plan  # before the run ends (`consolidation.heap`)
        return report

    async def consolidate_new(
        self, tenant_id: TenantId, entity_ids: Sequence[EntityId]
    ) -> ConsolidationReport:
        """Resolve a batch of newly ingested entities against the tenant (incremental)."""
        graph = self._workspace.graph
        seen = await self._workspace.log.last_position()
        entities = await graph.get_entities(list(entity_ids), tenant_id)
        types = sorted({e.entity_type for e in entities})
        plan = await resolve_incremental(
            entities,
            graph,
            tenant_id,
            neighbours=await self._neighbours(tenant_id),
            adjudicator=self._adjudicator,
            models=await self.logged_models(tenant_id, types),
            separate=await self.undone(tenant_id),
            members=await self.made_of(tenant_id),
        )
        return await self._apply(tenant_id, entities, plan, None, seen)

    async def undone(self, tenant_id: TenantId) -> list[set[EntityId]]:
        """The entities of each undone merge: a user said they are not one, so no
        later run joins any two of them again."""
        log = self._workspace.log
        out: list[set[EntityId]] = []
        for recorded in await log.read_type(MergeUndone.event_type, tenant_id):
            undo = decode(recorded)
            assert isinstance(undo, MergeUndone)
            stream = await log.read_stream(merge_stream(undo.merge_id), tenant_id)
            merged = decode(stream[0]) if stream else None
            if isinstance(merged, EntitiesMerged):
                out.append({merged.canonical_id, *merged.merged_ids})
        return out

    async def made_of(self, tenant_id: TenantId) -> dict[EntityId, list[Entity]]:
        """Per entity a merge made, the entities it was made of as they were before
        any merge (before-snapshots, followed back through merges of merged
        entities; undone merges left out), so a later run compares records, not
        merged profiles (see `consolidation.engine`)."""
        log = self._workspace.log
        undone = set()
        for recorded in await log.read_type(MergeUndone.event_type, tenant_id):
            undo = decode(recorded)
            assert isinstance(undo, MergeUndone)
            undone.add(undo.merge_id)
        made_of: dict[EntityId, list[Entity]] = {}
        for recorded in await log.read_type(EntitiesMerged.event_type, tenant_id):
            merge = decode(recorded)
            assert isinstance(merge, EntitiesMerged)
            if merge.merge_id in undone:
                continue
            parts: list[Entity] = []
            for before in merge.entities_before:
                parts.extend(made_of.pop(before.id, [before]))
            made_of[merge.canonical_id] = parts
        return made_of

    async def logged_models(
        self, tenant_id: TenantId, entity_types: Sequence[str]
    ) -> dict[str, TrainedModel]:
        """The newest record model logged for each of `entity_types` (where one was)."""
        models: dict[str, TrainedModel] = {}
        for entity_type in entity_types:
            stream = await self._workspace.log.read_stream(
                model_stream(tenant_id, entity_type), tenant_id
            )
            if stream:
                event = decode(stream[-1])
                if isinstance(event, ResolutionModelTrained):
                    models[entity_type] = TrainedModel.from_dict(event.model)
        return models

    async def undo(self, merge_id: UUID, tenant_id: TenantId, *, reason: str = "") -> None:
        """Reverse one merge exactly. Undo newer merges of the same entities first."""
        stream = merge_stream(merge_id)
        version = await self._workspace.log.stream_version(stream, tenant_id)
        if version == 0:
            raise NotFoundError(f"no merge {merge_id} in this tenant")
        if version > 1:
            raise ConcurrencyError(f"merge {merge_id} was already undone")
        event = MergeUndone(tenant_id=tenant_id, merge_id=merge_id, reason=reason)
        await self._workspace.append(stream, [event], expected_version=1)
        await self._workspace.catch_up()

    async def _neighbours(self, tenant_id: TenantId) -> dict[EntityId, set[EntityId]]:
        neighbours: dict[EntityId, set[EntityId]] = {}
        for rel in await self._workspace.graph.list_relationships(tenant_id):
            neighbours.setdefault(rel.source_id, set()).add(rel.target_id)
            neighbours.setdefault(rel.target_id, set()).add(rel.source_id)
        return neighbours

    async def _apply(
        self,
        tenant_id: TenantId,
        entities: Sequence[Entity],
        plan: ResolutionPlan,
        progress: Callable[[int, int], None] | None,
        seen: int,
        *,
        edgeless: bool = False,
    ) -> ConsolidationReport:
        """Append and fold the plan's merges. `seen` is the log's last position when
        `entities` were read: while no other writer has appended since, they are what
        the store holds and serve as the merges' before-snapshots without a read
        (people-50k: 45k entities, ~2 s of decoding); once one has, every snapshot is
        read from the store inside the write transaction, as before. `edgeless`: the
        tenant held no relationship then, so while those snapshots hold neither do
        the merged entities (merges only redirect edges), and none are read."""
        log = self._workspace.log
        known = {entity.id: entity for entity in entities}
        if await log.last_position() != seen:
            known = {}
        trained = {t: TrainedModel.from_dict(model) for t, model in plan.models.items()}
        bars = {t: model.start_logit for t, model in trained.items()}
        report = ConsolidationReport(
            entities=len(entities),
            bands=dict(plan.band_counts),
            adjudicated=dict(plan.adjudicated),
            grey_kept_apart=plan.grey_count,
            candidate_pairs=len(plan.candidate_pairs),
            fields={
                t: {f.name.removeprefix("@"): f.kind.value for f in r.used}
                for t, r in plan.fields.items()
            },
            left_out={
                t: {name.removeprefix("@"): why for name, why in r.left_out.items()}
                for t, r in plan.fields.items()
            },
            models_reused=list(plan.reused_models),
            start_bars=bars,
            lone_bars=dict(plan.lone_bars),
            rule_rates={t: dict(model.rule_rates) for t, model in trained.items()},
            unseparated=sorted(t for t, model in trained.items() if model.unseparated),
            bundles={
                t: [[name.removeprefix("@") for name in b] for b in model.bundles]
                for t, model in trained.items()
                if model.bundles
            },
            dependent={
                t: [
                    [name.removeprefix("@") for name in cast("list[str]", d["fields"])]
                    for d in model.dependent
                ]
                for t, model in trained.items()
                if model.dependent
            },
        )
        unlogged = [(t, m) for t, m in sorted(plan.models.items()) if t not in plan.reused_models]
        merges = plan.merges
        ours = await log.last_position()
        for start in range(0, max(len(merges), 1 if unlogged else 0), MERGES_PER_COMMIT):
            # Nothing inside catches an error: any failure drops the whole group.
            with self._workspace.atomic(whole=True):
                if await log.last_position() != ours:
                    known = {}  # another writer appended since our last commit
                # The trained models commit with the first merges, which they decided:
                # one sync to disk, not two (~30 ms of every consolidation).
                for entity_type, model in unlogged:
                    await self._log_model(tenant_id, entity_type, model)
                    report.models_trained.append(entity_type)
                unlogged = []
                end = min(len(merges), start + MERGES_PER_COMMIT)
                for first in range(start, end, MERGES_PER_FOLD):
                    batch = merges[first : min(end, first + MERGES_PER_FOLD)]
                    pending = _Unfolded()
                    stored = await self._stored(tenant_id, batch, known, edgeless=edgeless)
                    ids = []
                    # Appended together before each fold: one check of every merge's new
                    # stream and one write, not one transaction per merge.
                    unwritten: list[tuple[str, Sequence[DomainEvent], int]] = []
                    for index, decision in enumerate(batch):
                        if pending.touches(_involved(decision)):
                            # Merges of one plan never share an entity; one that does is
                            # written over the folded earlier merge, read afresh.
                            if unwritten:
                                await self._workspace.append_streams(unwritten)
                                unwritten.clear()
                            await self._workspace.catch_up()
                            pending.clear()
                            known = {}
                            stored = await self._stored(
                                tenant_id, batch[index:], known, edgeless=edgeless
                            )
                        event = self._merge(tenant_id, decision, pending, stored)
                        unwritten.append((merge_stream(event.merge_id), [event], 0))
                        ids.append(event.merge_id)
                    if unwritten:
                        await self._workspace.append_streams(unwritten)
                    await self._workspace.catch_up()
                    for merge_id, decision in zip(ids, batch, strict=True):
                        report.merge_ids.append(merge_id)
                        report.merges += 1
                        report.merged_entities += len(decision.merged_ids)
                    if progress is not None:
                        progress(first + len(batch), len(merges))
                ours = await log.last_position()
        return report

    async def _log_model(
        self, tenant_id: TenantId, entity_type: str, model: Mapping[str, object]
    ) -> None:
        stream = model_stream(tenant_id, entity_type)
        version = await self._workspace.log.stream_version(stream, tenant_id)
        event = ResolutionModelTrained(
            tenant_id=tenant_id,
            entity_type=entity_type,
            trained_on=TrainedModel.from_dict(model).trained_on,
            model=json.loads(json.dumps(model)),
        )
        await self._workspace.append(stream, [event], expected_version=version)

    async def _stored(
        self,
        tenant_id: TenantId,
        batch: Sequence[MergeDecision],
        known: Mapping[EntityId, Entity],
        *,
        edgeless: bool = False,
    ) -> _Stored:
        """The stored entities and edges of `batch`'s merges, read at once (per merge,
        one read per entity cost more than writing the merge). Entities in `known`
        (the store's, see `_apply`; the merges of one plan share no entity, so no
        earlier batch changed them) are not read again."""
        graph = self._workspace.graph
        ids = [entity_id for decision in batch for entity_id in _involved(decision)]
        edges: dict[EntityId, list[Relationship]] = {}
        # With `known` in force, an edgeless tenant still has no edge to read.
        read = [] if edgeless and known else await graph.relationships_many(ids, tenant_id)
        for rel in read:
            edges.setdefault(rel.source_id, []).append(rel)
            if rel.target_id != rel.source_id:
                edges.setdefault(rel.target_id, []).append(rel)
        # An entity in `known` was live when read and no merge since touched it: it is
        # its own canonical (a live entity is never an alias), so only the others are
        # looked up (people-50k: 49k ids, ~0.14 s of reads). One pass sorts them out:
        # a pass per step hashed every UUID again, in Python (~0.05 s of 49k).
        entities: dict[EntityId, Entity] = {}
        asked: list[EntityId] = []
        for entity_id in ids:
            entity = known.get(entity_id)
            if entity is None:
                asked.append(entity_id)
            else:
                entities[entity_id] = entity
        asked = list(dict.fromkeys(asked))
        found = await graph.resolve_many(asked, tenant_id) if asked else {}
        # Only the asked ids stored as aliases are kept; any other is its own canonical.
        moved = {
            entity_id: found[entity_id]
            for entity_id in asked
            if found.get(entity_id, entity_id) != entity_id
        }
        missing: list[EntityId] = []
        for canonical in dict.fromkeys(moved.get(entity_id, entity_id) for entity_id in asked):
            if canonical in entities:
                continue
            entity = known.get(canonical)
            if entity is None:
                missing.append(canonical)
            else:
                entities[canonical] = entity
        if missing:
            entities.update((e.id, e) for e in await graph.get_entities(missing, tenant_id))
        return _Stored(moved=moved, entities=entities, edges=edges)

    def _merge(
        self, tenant_id: TenantId, decision: MergeDecision, pending: _Unfolded, stored: _Stored
    ) -> EntitiesMerged:
        """One merge's event, for the caller to append and fold with its batch.

        The snapshot is the graph as folding the earlier merges of the batch would
        leave it: entities as `stored` (read before the batch was appended; its merges
        share no entity), edges as `stored` with the unfolded merges' redirects
        applied (`pending`)."""
        involved = _involved(decision)
        canonical = dict.fromkeys(stored.moved.get(entity_id, entity_id) for entity_id in involved)
        before = sorted(
            (entity for c in canonical if (entity := stored.entities.get(c)) is not None),
            key=_by_id,
        )
        touching = {rel.id: rel for c in canonical for rel in stored.edges.get(c, ())}
        edges = pending.edges_of(touching, set(involved))
        merge_id = uuid4()
        event = EntitiesMerged.build(
            tenant_id=tenant_id,
            merge_id=merge_id,
            canonical=decision.merged_entity,
            merged_ids=list(decision.merged_ids),
            reason=decision.reason,
            entities_before=before,
            relationships_before=sorted(edges.values(), key=_by_id),
            scores=decision.scores,
        )
        pending.add(involved, event)
        return event


def _involved(decision: MergeDecision) -> list[EntityId]:
    return [decision.canonical_id, *decision.merged_ids]


def _by_id(record: Entity | Relationship) -> int:
    """Sort key giving the order of `str(record.id)` (`id_order`)."""
    return id_order(record.id)


@dataclass
class _Stored:
    """What the store held for a batch of merges: the canonical of each asked id
    stored as an alias (any other id is its own), the entities by id and the edges
    by endpoint."""

    moved: Mapping[EntityId, EntityId]
    entities: Mapping[EntityId, Entity]
    edges: Mapping[EntityId, list[Relationship]]


class _Unfolded:
    """Merges appended but not yet folded into the graph: the entities they touch and
    the edges they delete and write, so the next snapshot sees what folding would."""

    def __init__(self) -> None:
        self._entities: set[EntityId] = set()
        self._deleted: set[RelationshipId] = set()
        self._written: dict[RelationshipId, Relationship] = {}

    def touches(self, entity_ids: Sequence[EntityId]) -> bool:
        return not self._entities.isdisjoint(entity_ids)

    def clear(self) -> None:
        self._entities.clear()
        self._deleted.clear()
        self._written.clear()

    def add(self, entity_ids: Sequence[EntityId], event: EntitiesMerged) -> None:
        self._entities.update(entity_ids)
        for rel in event.relationships_before:
            self._deleted.add(rel.id)
            self._written.pop(rel.id, None)
        self._written.update((rel.id, rel) for rel in event.relationships_after)

    def edges_of(
        self, stored: Mapping[RelationshipId, Relationship], involved: set[EntityId]
    ) -> dict[RelationshipId, Relationship]:
        """The edges touching `involved` once the pending merges are folded, given
        those the store holds now."""
        edges = {
            rel_id: rel
            for rel_id, rel in stored.items()
            if rel_id not in self._deleted and rel_id not in self._written
        }
        for rel_id, rel in self._written.items():
            if rel.source_id in involved or rel.target_id in involved:
                edges[rel_id] = rel
        return edges
