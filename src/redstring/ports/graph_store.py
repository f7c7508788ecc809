"""The graph store port: entities, relationships, blocking keys and aliases of each tenant."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.entity import Entity
    from redstring.domain.ids import EntityId, RelationshipId, TenantId
    from redstring.domain.lexical import LexicalCandidate
    from redstring.domain.relationship import Relationship


class GraphStore(Protocol):
    """Tenant-scoped graph storage.

    Contract (checked by `redstring.testing.GraphStoreCompliance`):

    - Every call is scoped to `tenant_id`; ids may collide across tenants and a
      read never returns another tenant's record.
    - Reads return copies: mutating a returned entity never changes the store.
    - Upserts are idempotent and keyed by `(tenant_id, id)`; a record whose
      `tenant_id` differs from the call's raises `TenantMismatchError` and
      nothing of that call is written.
    - Reads by id resolve aliases: asking for a merged-away id returns its
      canonical entity. Blocking-key and listing reads return live entities only.
    """

    async def upsert_entities(self, entities: Sequence[Entity], tenant_id: TenantId) -> None: ...

    async def get_entity(self, entity_id: EntityId, tenant_id: TenantId) -> Entity | None:
        """The entity, or its canonical if `entity_id` is an alias; `None` if unknown."""
        ...

    async def get_entities(
        self, entity_ids: Sequence[EntityId], tenant_id: TenantId
    ) -> list[Entity]:
        """Known entities among `entity_ids` (aliases resolved, each canonical once).

        Missing ids are omitted; order is unspecified, so key the result by id.
        """
        ...

    async def find_by_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId
    ) -> dict[str, list[Entity]]:
        """Live entities filed under each key. Every requested key is present in the
        result, with an empty list when nothing is filed under it."""
        ...

    async def lexical_candidates(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int
    ) -> list[LexicalCandidate]:
        """Live entities filed under any of `keys` among their `lexicon_keys`, each
        once, ordered by id string: the lexical channel's candidates, bounded.

        Blocks are taken rarest key first, each whole while the total stays within
        `limit`; a block that would overflow it is skipped (a key shared by that many
        entities is weak evidence, like a stop word). When even the rarest block
        overflows, its first `limit` entities by id string are taken, so a query
        always gets candidates if any exist. Cost is therefore bounded by `limit`
        rows plus one count per key, however large the tenant.
        """
        ...

    async def list_entities(
        self, tenant_id: TenantId, *, entity_types: Sequence[str] | None = None
    ) -> list[Entity]:
        """Every live entity of the tenant, ordered by id string."""
        ...

    async def count_entities(self, tenant_id: TenantId) -> int: ...

    async def delete_entities(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> None:
        """Remove entities (not aliases) and the relationships that touch them."""
        ...

    async def upsert_relationships(
        self, relationships: Sequence[Relationship], tenant_id: TenantId
    ) -> None: ...

    async def delete_relationships(
        self, relationship_ids: Sequence[RelationshipId], tenant_id: TenantId
    ) -> None: ...

    async def relationships(self, entity_id: EntityId, tenant_id: TenantId) -> list[Relationship]:
        """Relationships with the (alias-resolved) entity at either end, ordered by id string."""
        ...

    async def relationships_many(
        self, entity_ids: Sequence[EntityId], tenant_id: TenantId
    ) -> list[Relationship]:
        """Relationships with any of the (alias-resolved) `entity_ids` at either end, each
        once, ordered by id string: `relationships` of many entities in one read (a
        consolidation snapshots the edges of thousands of merged entities)."""
        ...

    async def list_relationships(self, tenant_id: TenantId) -> list[Relationship]:
        """Every relationship of the tenant, ordered by id string."""
        ...

    async def neighbours(self, entity_id: EntityId, tenant_id: TenantId) -> list[Entity]:
        """Entities one edge away in either direction, each once, ordered by id string."""
        ...

    async def set_alias(
        self, alias_id: EntityId, canonical_id: EntityId, tenant_id: TenantId
    ) -> None:
        """Make `alias_id` resolve to `canonical_id` (itself resolved first)."""
        ...

    async def set_aliases(
        self, aliases: Sequence[tuple[EntityId, EntityId]], tenant_id: TenantId
    ) -> None:
        """`set_alias(alias, canonical)` for each pair in order, written at once (a
        batch of merges folds its aliases in one write). A pair that would make a
        cycle raises `ValueError` and nothing of the call is written."""
        ...

    async def remove_alias(self, alias_id: EntityId, tenant_id: TenantId) -> None: ...

    async def resolve(self, entity_id: EntityId, tenant_id: TenantId) -> EntityId:
        """The canonical id for `entity_id` (itself when it is no alias)."""
        ...

    async def resolve_many(
        self, entity_ids: Sequence[EntityId], tenant_id: TenantId
    ) -> dict[EntityId, EntityId]:
        """`resolve` for each of `entity_ids` at once: every asked id is a key, mapped
        to its canonical id (itself when it is no alias of this tenant's). One read
        however many ids, because a read path resolving its hits one call at a time
        pays a server round trip per hit."""
        ...

    async def delete_by_tenant(self, tenant_id: TenantId) -> None:
        """Remove everything the tenant owns; other tenants are untouched."""
        ...
