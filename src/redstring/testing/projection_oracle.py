"""An independent reference fold, and a scenario generator, for projection tests.

`Oracle` folds typed events into plain dicts, written separately from
`redstring.projections` and as directly as possible, so a projection test can
compare a real store against it instead of against the projection's own idea of
right. `Scenario` produces a seeded, realistic event history -- repeated
mentions, mentions of merged-away entities, chained merges, undos, embeddings,
two tenants with colliding names -- applying each event to the oracle as it goes,
because a merge's snapshots must come from the state just before it.

Ids follow what extraction does: entity and relationship ids are derived, so a
relationship's id after alias resolution is `derived_relationship_id` of its
resolved endpoints.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any
from uuid import UUID

from redstring.domain.entity import Entity
from redstring.domain.ids import (
    EntityId,
    RelationshipId,
    TenantId,
    derived_entity_id,
    derived_relationship_id,
)
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
    RecordsImported,
    document_stream,
    embeddings_stream,
    merge_stream,
    records_stream,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

    from redstring.events import DomainEvent
    from redstring.ports.graph_store import GraphStore
    from redstring.ports.vector_store import VectorStore

TENANTS = (
    TenantId(UUID("00000000-0000-4000-8000-00000000000a")),
    TenantId(UUID("00000000-0000-4000-8000-00000000000b")),
)
NAMES = ("Ada Lovelace", "Charles Babbage", "Mary Somerville", "Alan Turing", "Grace Hopper")
TYPES = ("person", "organization")
DIMENSION = 4
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


@dataclass
class Oracle:
    """Plain-dict state per tenant: live entities, relationships, aliases, vectors."""

    entities: dict[TenantId, dict[EntityId, Entity]] = field(default_factory=dict)
    relationships: dict[TenantId, dict[RelationshipId, Relationship]] = field(default_factory=dict)
    aliases: dict[TenantId, dict[EntityId, EntityId]] = field(default_factory=dict)
    vectors: dict[TenantId, dict[EntityId, tuple[str, list[float]]]] = field(default_factory=dict)
    #: (event index, tenant, entity id, type, vector) of every embedding, for undo.
    embedded: list[tuple[int, TenantId, EntityId, str, list[float]]] = field(default_factory=list)
    merges: dict[UUID, tuple[int, EntitiesMerged]] = field(default_factory=dict)
    seen_ids: dict[TenantId, set[EntityId]] = field(default_factory=dict)
    applied: int = 0

    def apply(self, event: DomainEvent) -> None:
        t = event.tenant_id
        ents = self.entities.setdefault(t, {})
        rels = self.relationships.setdefault(t, {})
        aliases = self.aliases.setdefault(t, {})
        vecs = self.vectors.setdefault(t, {})
        seen = self.seen_ids.setdefault(t, set())
        index = self.applied
        self.applied += 1

        def resolve(entity_id: EntityId) -> EntityId:
            return aliases.get(entity_id, entity_id)

        if isinstance(event, DocumentExtracted | RecordsImported):
            for e in event.entities:
                seen.add(e.id)
                key = resolve(e.id)
                ents[key] = e.model_copy(deep=True) if key not in ents else _add(ents[key], e)
            for r in event.relationships:
                s, d = resolve(r.source_id), resolve(r.target_id)
                if s == d:
                    continue
                rid = derived_relationship_id(t, s, r.relationship_type, d)
                moved = r.model_copy(update={"id": rid, "source_id": s, "target_id": d}, deep=True)
                rels[rid] = moved if rid not in rels else _add(rels[rid], moved)
        elif isinstance(event, EntitiesEmbedded):
            for v in event.vectors:
                vecs[v.entity_id] = (v.entity_type, list(v.vector))
                self.embedded.append((index, t, v.entity_id, v.entity_type, list(v.vector)))
        elif isinstance(event, EntitiesMerged):
            self.merges[event.merge_id] = (index, event)
            for r in event.relationships_before:
                rels.pop(r.id, None)
            for m in event.merged_ids:
                ents.pop(m, None)
                vecs.pop(m, None)
                for rid in [k for k, r in rels.items() if m in (r.source_id, r.target_id)]:
                    del rels[rid]
            ents[event.canonical_id] = event.canonical.model_copy(deep=True)
            seen.add(event.canonical_id)
            for m in event.merged_ids:
                aliases[m] = resolve(event.canonical_id)
                for a in [a for a, c in aliases.items() if c == m]:
                    aliases[a] = aliases[m]
            for r in event.relationships_after:
                rels[r.id] = r.model_copy(deep=True)
        elif isinstance(event, MergeUndone):
            merge_index, merge = self.merges[event.merge_id]
            for r in merge.relationships_after:
                rels.pop(r.id, None)
            for m in merge.merged_ids:
                aliases.pop(m, None)
            before_ids = {e.id for e in merge.entities_before}
            if merge.canonical_id not in before_ids:
                ents.pop(merge.canonical_id, None)
                vecs.pop(merge.canonical_id, None)
                c = merge.canonical_id
                for rid in [k for k, r in rels.items() if c in (r.source_id, r.target_id)]:
                    del rels[rid]
            for e in merge.entities_before:
                ents[e.id] = e.model_copy(deep=True)
            for r in merge.relationships_before:
                rels[r.id] = r.model_copy(deep=True)
            for i, tenant, entity_id, entity_type, vector in self.embedded:
                if i < merge_index and tenant == t and entity_id in merge.merged_ids:
                    vecs[entity_id] = (entity_type, vector)

    def graph_state(self) -> dict[str, Any]:
        return {
            str(t): {
                "entities": sorted(
                    (e.model_dump(mode="json") for e in self.entities.get(t, {}).values()),
                    key=lambda e: e["id"],
                ),
                "relationships": sorted(
                    (r.model_dump(mode="json") for r in self.relationships.get(t, {}).values()),
                    key=lambda r: r["id"],
                ),
                "resolve": {
                    str(i): str(self.aliases.get(t, {}).get(i, i))
                    for i in sorted(self.seen_ids.get(t, set()), key=str)
                },
            }
            for t in TENANTS
        }


def _add(stored: Any, new: Any) -> Any:
    """The observation-combining rule, restated: max confidence, newer properties win,
    provenance unioned in order."""
    return stored.model_copy(
        update={
            "confidence": max(stored.confidence, new.confidence),
            "properties": {**stored.properties, **new.properties},
            "provenance": stored.provenance
            + [p for p in new.provenance if p not in stored.provenance],
        },
        deep=True,
    )


async def store_graph_state(graph: GraphStore, oracle: Oracle) -> dict[str, Any]:
    """The same shape as `Oracle.graph_state`, read through the `GraphStore` port."""
    state: dict[str, Any] = {}
    for t in TENANTS:
        ids = sorted(oracle.seen_ids.get(t, set()), key=str)
        state[str(t)] = {
            "entities": [e.model_dump(mode="json") for e in await graph.list_entities(t)],
            "relationships": [r.model_dump(mode="json") for r in await graph.list_relationships(t)],
            "resolve": {str(i): str(await graph.resolve(i, t)) for i in ids},
        }
    return state


async def vector_mismatches(store: VectorStore, oracle: Oracle) -> list[str]:
    """Differences between a vector store and the oracle, found through `search` alone
    (the port has no read-by-id): counts per tenant, and each expected vector must
    find its own entity first with a perfect score and the expected type."""
    problems: list[str] = []
    for t in TENANTS:
        expected = oracle.vectors.get(t, {})
        count = await store.count(t)
        if count != len(expected):
            problems.append(f"tenant {t}: {count} vectors, expected {len(expected)}")
        for entity_id, (entity_type, vector) in expected.items():
            hits = await store.search(vector, t, k=1)
            if not hits or hits[0].entity_id != entity_id or hits[0].entity_type != entity_type:
                problems.append(f"tenant {t}: {entity_id} not found by its own vector: {hits}")
            elif abs(hits[0].score - 1.0) > 1e-6:
                problems.append(f"tenant {t}: {entity_id} scores {hits[0].score}, expected 1")
    return problems


@dataclass
class Append:
    """One call to `EventLog.append`: the unit that is all-or-nothing."""

    stream_id: str
    events: list[DomainEvent]
    expected_version: int


@dataclass
class Scenario:
    """A seeded history of appends, with the oracle already folded over it."""

    seed: int
    oracle: Oracle = field(default_factory=Oracle)
    appends: list[Append] = field(default_factory=list)
    _versions: dict[str, int] = field(default_factory=dict)
    _merge_stack: dict[TenantId, list[UUID]] = field(default_factory=dict)
    _clock: int = 0

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    @classmethod
    def generate(cls, seed: int, steps: int) -> Scenario:
        scenario = cls(seed)
        for _ in range(steps):
            scenario.step()
        return scenario

    def _emit(self, stream_id: str, events: list[DomainEvent]) -> None:
        version = self._versions.get(stream_id, 0)
        self.appends.append(Append(stream_id, events, version))
        self._versions[stream_id] = version + len(events)
        for event in events:
            self.oracle.apply(event)

    def _provenance(self, source_id: str) -> Provenance:
        self._clock += 1
        return Provenance(
            observed_at=_EPOCH + timedelta(seconds=self._clock),
            method="test",
            model="scripted",
            source_id=source_id,
        )

    def _mention(self, tenant: TenantId, source_id: str) -> Entity:
        name = self._rng.choice(NAMES)
        entity_type = self._rng.choice(TYPES)
        return Entity(
            id=derived_entity_id(tenant, entity_type, normalize_name(name)),
            tenant_id=tenant,
            name=name,
            entity_type=entity_type,
            confidence=self._rng.choice((0.5, 0.8, 1.0)),
            properties={"seen_in": source_id, f"k{self._rng.randrange(3)}": self._rng.random()},
            provenance=[self._provenance(source_id)],
        )

    def _extraction(
        self, tenant: TenantId, source_id: str
    ) -> tuple[list[Entity], list[Relationship]]:
        entities = [self._mention(tenant, source_id) for _ in range(self._rng.randint(1, 4))]
        relationships = []
        for _ in range(self._rng.randint(0, 3)):
            a, b = (
                self._rng.sample(entities, 2) if len(entities) > 1 else (entities[0], entities[0])
            )
            if a.id == b.id:
                continue
            kind = self._rng.choice(("knows", "works_with"))
            relationships.append(
                Relationship(
                    id=derived_relationship_id(tenant, a.id, kind, b.id),
                    tenant_id=tenant,
                    source_id=a.id,
                    target_id=b.id,
                    relationship_type=kind,
                    confidence=self._rng.choice((0.6, 0.9)),
                    provenance=[self._provenance(source_id)],
                )
            )
        return entities, relationships

    def step(self) -> None:
        rng = self._rng
        tenant = rng.choice(TENANTS)
        roll = rng.random()
        live = sorted(self.oracle.entities.get(tenant, {}).values(), key=lambda e: str(e.id))
        if roll < 0.45 or not live:
            source = f"doc-{rng.randrange(6)}"
            events: list[DomainEvent] = []
            for _ in range(rng.randint(1, 2)):
                entities, relationships = self._extraction(tenant, source)
                events.append(
                    DocumentExtracted(
                        tenant_id=tenant,
                        source_id=source,
                        content_hash=f"h{rng.randrange(10**6)}",
                        model="scripted",
                        model_version="1",
                        entities=entities,
                        relationships=relationships,
                        chunks=ChunkStats(chunk_count=1, char_count=100),
                    )
                )
            self._emit(document_stream(tenant, source), events)
        elif roll < 0.52:
            source = f"records-{rng.randrange(2)}"
            entities, relationships = self._extraction(tenant, source)
            self._emit(
                records_stream(tenant, source),
                [
                    RecordsImported(
                        tenant_id=tenant,
                        source_id=source,
                        entities=entities,
                        relationships=relationships,
                    )
                ],
            )
        elif roll < 0.7:
            chosen = rng.sample(live, min(len(live), rng.randint(1, 3)))
            self._emit(
                embeddings_stream(tenant, "fake"),
                [
                    EntitiesEmbedded(
                        tenant_id=tenant,
                        model="fake",
                        dimension=DIMENSION,
                        vectors=[
                            EmbeddedEntity(
                                entity_id=e.id,
                                entity_type=e.entity_type,
                                vector=[rng.uniform(-1, 1) for _ in range(DIMENSION)],
                            )
                            for e in chosen
                        ],
                    )
                ],
            )
        elif roll < 0.88 and len(live) >= 2:
            self._merge(tenant, live)
        elif self._merge_stack.get(tenant):
            merge_id = self._merge_stack[tenant].pop()
            self._emit(merge_stream(merge_id), [MergeUndone(tenant_id=tenant, merge_id=merge_id)])

    def _merge(self, tenant: TenantId, live: list[Entity]) -> None:
        rng = self._rng
        canonical_before, *merged = rng.sample(live, min(len(live), rng.randint(2, 3)))
        involved = {canonical_before.id, *(m.id for m in merged)}
        touching = [
            r
            for r in self.oracle.relationships.get(tenant, {}).values()
            if r.source_id in involved or r.target_id in involved
        ]
        canonical = canonical_before.model_copy(
            update={
                "provenance": [
                    *canonical_before.provenance,
                    *(p for m in merged for p in m.provenance),
                ],
                "properties": {**canonical_before.properties, "merged": len(merged)},
            },
            deep=True,
        )
        merge_id = UUID(int=rng.getrandbits(128), version=4)
        self._emit(
            merge_stream(merge_id),
            [
                EntitiesMerged.build(
                    tenant_id=tenant,
                    merge_id=merge_id,
                    canonical=canonical,
                    merged_ids=[m.id for m in merged],
                    reason="test",
                    scores={"name": 0.9},
                    entities_before=[canonical_before, *merged],
                    relationships_before=touching,
                )
            ],
        )
        self._merge_stack.setdefault(tenant, []).append(merge_id)


def all_events(appends: Iterable[Append]) -> list[DomainEvent]:
    return [event for append in appends for event in append.events]
