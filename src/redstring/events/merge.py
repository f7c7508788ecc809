"""Merge decisions and their undo, with snapshots that make the undo exact.

`EntitiesMerged` records the *result* of a merge (canonical entity, redirected
edges) as well as the *before* state of everything it touched. The projection
applies the result without recomputing it, so a replay is the same merge even if
the redirect rules change later; `MergeUndone` restores the snapshots.

Why snapshots rather than an inverse computation: a merge loses information
(duplicate edges collapse, self-loops drop, properties combine), so the only
exact inverse is the state before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar
from uuid import UUID

from pydantic import Field, model_validator

from redstring.domain.entity import Entity
from redstring.domain.ids import EntityId, RelationshipId, TenantId, derived_relationship_id
from redstring.domain.relationship import Relationship
from redstring.events.base import DomainEvent, check_tenant, register

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from pydantic import JsonValue

    from redstring.domain.provenance import Provenance


def redirect_relationships(
    relationships: Iterable[Relationship],
    redirect: Mapping[EntityId, EntityId],
    tenant_id: TenantId,
) -> list[Relationship]:
    """Rewrite endpoints through `redirect`; drop self-loops; collapse duplicate edges.

    An edge whose endpoints did not change keeps its id. A redirected edge gets the
    derived id of its new `(source, type, target)`, so two edges that now say the
    same thing become one: confidence is the maximum, provenance the union (in
    order, without repeats), properties combined in id order. When an unchanged
    edge and redirected ones collapse, the unchanged edge's id wins, so nothing
    that referred to it dangles. The result is ordered by id string.
    """
    groups: dict[tuple[EntityId, str, EntityId], list[tuple[bool, Relationship]]] = {}
    for rel in sorted(relationships, key=lambda r: str(r.id)):
        source = redirect.get(rel.source_id, rel.source_id)
        target = redirect.get(rel.target_id, rel.target_id)
        if source == target:
            continue
        unchanged = source == rel.source_id and target == rel.target_id
        groups.setdefault((source, rel.relationship_type, target), []).append((unchanged, rel))
    result: list[Relationship] = []
    for (source, rel_type, target), members in groups.items():
        kept = [rel for unchanged, rel in members if unchanged]
        rel_id: RelationshipId = (
            kept[0].id if kept else derived_relationship_id(tenant_id, source, rel_type, target)
        )
        properties: dict[str, JsonValue] = {}
        provenance: list[Provenance] = []
        for _, rel in members:
            properties.update(rel.properties)
            provenance.extend(p for p in rel.provenance if p not in provenance)
        result.append(
            Relationship(
                id=rel_id,
                tenant_id=tenant_id,
                source_id=source,
                target_id=target,
                relationship_type=rel_type,
                confidence=max(rel.confidence for _, rel in members),
                properties=properties,
                provenance=provenance,
            )
        )
    return sorted(result, key=lambda r: str(r.id))


@register
class EntitiesMerged(DomainEvent):
    """`merged_ids` become aliases of `canonical_id`; `canonical` is the entity after.

    `entities_before` holds every involved entity as it was (the merged ones, and
    the canonical when it existed before); `relationships_before` every edge that
    touched any of them; `relationships_after` the redirected edges that replace
    them. Build one with `EntitiesMerged.build`, which computes the redirect.

    Undo is exact for the last merge touching these entities; undoing an older
    merge underneath a newer one restores the older snapshots (the consolidator
    should undo newest first).
    """

    event_type: ClassVar[str] = "EntitiesMerged"
    schema_version: ClassVar[int] = 1

    merge_id: UUID
    canonical_id: EntityId
    merged_ids: list[EntityId] = Field(min_length=1)
    reason: str = Field(min_length=1)
    scores: dict[str, float] = Field(default_factory=dict)
    entities_before: list[Entity]
    relationships_before: list[Relationship] = Field(default_factory=list)
    canonical: Entity
    relationships_after: list[Relationship] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> EntitiesMerged:
        check_tenant(
            self.tenant_id,
            [*self.entities_before, self.canonical],
            [*self.relationships_before, *self.relationships_after],
        )
        if self.canonical.id != self.canonical_id:
            raise ValueError(
                f"canonical entity has id {self.canonical.id}, expected {self.canonical_id}"
            )
        merged = set(self.merged_ids)
        if len(merged) != len(self.merged_ids):
            raise ValueError("merged_ids lists an entity twice")
        if self.canonical_id in merged:
            raise ValueError(f"entity {self.canonical_id} cannot be merged into itself")
        before = {e.id for e in self.entities_before}
        missing = merged - before
        if missing:
            raise ValueError(
                f"no before-snapshot for merged entities {sorted(map(str, missing))}; "
                "undo could not restore them"
            )
        involved = merged | {self.canonical_id}
        for rel in self.relationships_after:
            if rel.source_id in merged or rel.target_id in merged:
                raise ValueError(f"redirected relationship {rel.id} still touches a merged id")
        for rel in self.relationships_before:
            if rel.source_id not in involved and rel.target_id not in involved:
                raise ValueError(f"relationship {rel.id} touches no entity of this merge")
        return self

    @classmethod
    def build(
        cls,
        *,
        tenant_id: TenantId,
        merge_id: UUID,
        canonical: Entity,
        merged_ids: Sequence[EntityId],
        reason: str,
        entities_before: Sequence[Entity],
        relationships_before: Sequence[Relationship],
        scores: Mapping[str, float] | None = None,
    ) -> EntitiesMerged:
        """The event for merging `merged_ids` into `canonical`, redirect computed here."""
        redirect = dict.fromkeys(merged_ids, canonical.id)
        return cls(
            tenant_id=tenant_id,
            merge_id=merge_id,
            canonical_id=canonical.id,
            merged_ids=list(merged_ids),
            reason=reason,
            scores=dict(scores or {}),
            entities_before=list(entities_before),
            relationships_before=list(relationships_before),
            canonical=canonical,
            relationships_after=redirect_relationships(relationships_before, redirect, tenant_id),
        )


@register
class MergeUndone(DomainEvent):
    """Reverses the merge `merge_id`. Appended to that merge's stream at version 2."""

    event_type: ClassVar[str] = "MergeUndone"
    schema_version: ClassVar[int] = 1

    merge_id: UUID
    reason: str = ""
