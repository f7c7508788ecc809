"""In-memory `GraphStore`: a real single-process implementation, used by tests and the
memory workspace.

Everything is keyed by `(tenant_id, id)` so colliding ids across tenants cannot
cross, and every read hands back a deep copy so a caller mutating a result can
never change what the store holds.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from redstring.domain.blocking import lexicon_keys
from redstring.domain.exceptions import TenantMismatchError
from redstring.domain.lexical import LexicalCandidate, choose_blocks, filed_names

if TYPE_CHECKING:
    from collections.abc import MutableMapping, Sequence

    from redstring.domain.entity import Entity
    from redstring.domain.ids import EntityId, RelationshipId, TenantId
    from redstring.domain.relationship import Relationship


class InMemoryGraphStore:
    """See `redstring.ports.GraphStore` for the contract."""

    def __init__(self) -> None:
        self._entities: dict[tuple[TenantId, EntityId], Entity] = {}
        self._relationships: dict[tuple[TenantId, RelationshipId], Relationship] = {}
        self._aliases: dict[tuple[TenantId, EntityId], EntityId] = {}
        self._keys: defaultdict[tuple[TenantId, str], set[EntityId]] = defaultdict(set)
        self._lexicon: defaultdict[tuple[TenantId, str], set[EntityId]] = defaultdict(set)

    async def upsert_entities(self, entities: Sequence[Entity], tenant_id: TenantId) -> None:
        _check_tenant(entities, tenant_id)
        for entity in entities:
            previous = self._entities.get((tenant_id, entity.id))
            if previous is not None:
                self._unfile(previous)
            self._entities[(tenant_id, entity.id)] = entity.model_copy(deep=True)
            for key in entity.blocking_keys:
                self._keys[(tenant_id, key)].add(entity.id)
            for key in lexicon_keys(entity):
                self._lexicon[(tenant_id, key)].add(entity.id)

    def _unfile(self, entity: Entity) -> None:
        for key in entity.blocking_keys:
            self._keys[(entity.tenant_id, key)].discard(entity.id)
        for key in lexicon_keys(entity):
            self._lexicon[(entity.tenant_id, key)].discard(entity.id)

    def _resolved(self, entity_id: EntityId, tenant_id: TenantId) -> EntityId:
        return self._aliases.get((tenant_id, entity_id), entity_id)

    async def get_entity(self, entity_id: EntityId, tenant_id: TenantId) -> Entity | None:
        found = self._entities.get((tenant_id, self._resolved(entity_id, tenant_id)))
        return None if found is None else found.model_copy(deep=True)

    async def get_entities(
        self, entity_ids: Sequence[EntityId], tenant_id: TenantId
    ) -> list[Entity]:
        result: dict[EntityId, Entity] = {}
        for entity_id in entity_ids:
            canonical = self._resolved(entity_id, tenant_id)
            found = self._entities.get((tenant_id, canonical))
            if found is not None and canonical not in result:
                result[canonical] = found.model_copy(deep=True)
        return list(result.values())

    async def find_by_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId
    ) -> dict[str, list[Entity]]:
        return {
            key: [
                self._entities[(tenant_id, entity_id)].model_copy(deep=True)
                for entity_id in sorted(self._keys.get((tenant_id, key), set()), key=str)
            ]
            for key in keys
        }

    async def lexical_candidates(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int
    ) -> list[LexicalCandidate]:
        if limit < 1:
            return []
        blocks = {key: self._lexicon.get((tenant_id, key), set()) for key in keys}
        chosen = choose_blocks({key: len(block) for key, block in blocks.items()}, limit)
        found: set[EntityId] = set()
        for key in chosen.whole:
            found |= blocks[key]
        if chosen.partial is not None:
            found = set(sorted(blocks[chosen.partial], key=str)[:limit])
        candidates = []
        for entity_id in sorted(found, key=str):
            entity = self._entities[(tenant_id, entity_id)]
            candidates.append(
                LexicalCandidate(
                    id_string=str(entity_id),
                    entity_type=entity.entity_type,
                    filed_names=filed_names(entity),
                )
            )
        return candidates

    async def list_entities(
        self, tenant_id: TenantId, *, entity_types: Sequence[str] | None = None
    ) -> list[Entity]:
        wanted = None if entity_types is None else set(entity_types)
        found = [
            entity.model_copy(deep=True)
            for (owner, _), entity in self._entities.items()
            if owner == tenant_id and (wanted is None or entity.entity_type in wanted)
        ]
        return sorted(found, key=lambda entity: str(entity.id))

    async def count_entities(self, tenant_id: TenantId) -> int:
        return sum(1 for owner, _ in self._entities if owner == tenant_id)

    async def delete_entities(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> None:
        doomed = set(entity_ids)
        for entity_id in doomed:
            entity = self._entities.pop((tenant_id, entity_id), None)
            if entity is not None:
                self._unfile(entity)
        for key, relationship in list(self._relationships.items()):
            if key[0] == tenant_id and (
                relationship.source_id in doomed or relationship.target_id in doomed
            ):
                del self._relationships[key]

    async def upsert_relationships(
        self, relationships: Sequence[Relationship], tenant_id: TenantId
    ) -> None:
        _check_tenant(relationships, tenant_id)
        for relationship in relationships:
            self._relationships[(tenant_id, relationship.id)] = relationship.model_copy(deep=True)

    async def delete_relationships(
        self, relationship_ids: Sequence[RelationshipId], tenant_id: TenantId
    ) -> None:
        for relationship_id in relationship_ids:
            self._relationships.pop((tenant_id, relationship_id), None)

    async def relationships(self, entity_id: EntityId, tenant_id: TenantId) -> list[Relationship]:
        canonical = self._resolved(entity_id, tenant_id)
        found = [
            relationship.model_copy(deep=True)
            for (owner, _), relationship in self._relationships.items()
            if owner == tenant_id and canonical in (relationship.source_id, relationship.target_id)
        ]
        return sorted(found, key=lambda relationship: str(relationship.id))

    async def relationships_many(
        self, entity_ids: Sequence[EntityId], tenant_id: TenantId
    ) -> list[Relationship]:
        canonical = {self._resolved(entity_id, tenant_id) for entity_id in entity_ids}
        found = [
            relationship.model_copy(deep=True)
            for (owner, _), relationship in self._relationships.items()
            if owner == tenant_id
            and (relationship.source_id in canonical or relationship.target_id in canonical)
        ]
        return sorted(found, key=lambda relationship: str(relationship.id))

    async def list_relationships(self, tenant_id: TenantId) -> list[Relationship]:
        found = [
            relationship.model_copy(deep=True)
            for (owner, _), relationship in self._relationships.items()
            if owner == tenant_id
        ]
        return sorted(found, key=lambda relationship: str(relationship.id))

    async def neighbours(self, entity_id: EntityId, tenant_id: TenantId) -> list[Entity]:
        canonical = self._resolved(entity_id, tenant_id)
        other_ids = {
            relationship.target_id
            if relationship.source_id == canonical
            else relationship.source_id
            for relationship in await self.relationships(canonical, tenant_id)
        }
        return sorted(await self.get_entities(list(other_ids), tenant_id), key=lambda e: str(e.id))

    async def set_alias(
        self, alias_id: EntityId, canonical_id: EntityId, tenant_id: TenantId
    ) -> None:
        target = self._resolved(canonical_id, tenant_id)
        if target == alias_id:
            raise ValueError(f"aliasing {alias_id} to itself would make a cycle")
        self._aliases[(tenant_id, alias_id)] = target
        # Keep chains one hop long: anything that pointed at the alias now points on.
        for key, value in list(self._aliases.items()):
            if key[0] == tenant_id and value == alias_id:
                self._aliases[key] = target

    async def set_aliases(
        self, aliases: Sequence[tuple[EntityId, EntityId]], tenant_id: TenantId
    ) -> None:
        before = dict(self._aliases)
        try:
            for alias_id, canonical_id in aliases:
                await self.set_alias(alias_id, canonical_id, tenant_id)
        except ValueError:
            self._aliases = before
            raise

    async def remove_alias(self, alias_id: EntityId, tenant_id: TenantId) -> None:
        self._aliases.pop((tenant_id, alias_id), None)

    async def resolve(self, entity_id: EntityId, tenant_id: TenantId) -> EntityId:
        return self._resolved(entity_id, tenant_id)

    async def resolve_many(
        self, entity_ids: Sequence[EntityId], tenant_id: TenantId
    ) -> dict[EntityId, EntityId]:
        return {entity_id: self._resolved(entity_id, tenant_id) for entity_id in entity_ids}

    async def delete_by_tenant(self, tenant_id: TenantId) -> None:
        _drop_tenant(self._entities, tenant_id)
        _drop_tenant(self._relationships, tenant_id)
        _drop_tenant(self._aliases, tenant_id)
        _drop_tenant(self._keys, tenant_id)
        _drop_tenant(self._lexicon, tenant_id)


def _drop_tenant(store: MutableMapping[tuple[TenantId, Any], Any], tenant_id: TenantId) -> None:
    for key in [key for key in store if key[0] == tenant_id]:
        del store[key]


def _check_tenant(records: Sequence[Entity] | Sequence[Relationship], tenant_id: TenantId) -> None:
    """Refuse the whole call before writing anything: a partial write is the worse failure."""
    for record in records:
        if record.tenant_id != tenant_id:
            raise TenantMismatchError(
                f"record {record.id} belongs to tenant {record.tenant_id}, not {tenant_id}"
            )
