"""Identifier types.

`NewType` over `UUID` so mypy keeps an entity id from being passed where a
tenant id is expected, while the runtime value stays a plain `UUID`.

Derived ids (`uuid5`) make ingestion idempotent: the same tenant, type and
normalized name always yield the same `EntityId`, so ingesting a document twice
upserts rather than duplicates. Text extraction scopes them to the document as
well (`document_entity_id`): the same word in two documents may name two things
("Milan", Italy / New Hampshire), so only the resolver joins them (ADR 0012).
"""

from __future__ import annotations

from typing import NewType
from uuid import UUID, uuid4, uuid5

EntityId = NewType("EntityId", UUID)
RelationshipId = NewType("RelationshipId", UUID)
TenantId = NewType("TenantId", UUID)

#: Namespace for every derived id in redstring. Changing it re-keys every store.
_NAMESPACE = UUID("6f1c2a3e-8d0b-4b7e-9a51-2c6b7f0e4d19")


def new_entity_id() -> EntityId:
    return EntityId(uuid4())


def new_tenant_id() -> TenantId:
    return TenantId(uuid4())


def tenant_id_for(name: str) -> TenantId:
    """A stable tenant id for a human-readable tenant name (the CLI's `--tenant`)."""
    return TenantId(uuid5(_NAMESPACE, f"tenant:{name}"))


def derived_entity_id(tenant_id: TenantId, entity_type: str, normalized_name: str) -> EntityId:
    """The id an extracted entity gets: same tenant, type and name -> same id."""
    return EntityId(uuid5(_NAMESPACE, f"entity:{tenant_id}:{entity_type}:{normalized_name}"))


def document_entity_id(
    tenant_id: TenantId, source_id: str, entity_type: str, normalized_name: str
) -> EntityId:
    """The id a mention extracted from text gets: same tenant, document, type and
    name -> same id; the same name in another document is another entity."""
    return EntityId(
        uuid5(_NAMESPACE, f"entity:{tenant_id}:doc:{source_id}:{entity_type}:{normalized_name}")
    )


def derived_relationship_id(
    tenant_id: TenantId, source_id: EntityId, relationship_type: str, target_id: EntityId
) -> RelationshipId:
    """One id per (source, type, target) in a tenant: a repeated edge is an upsert."""
    return RelationshipId(
        uuid5(_NAMESPACE, f"rel:{tenant_id}:{source_id}:{relationship_type}:{target_id}")
    )


def id_order(value: UUID) -> int:
    """Sort key of an id in the order of its text (`str`), without making the text:
    a UUID's text is its 128-bit number in fixed-width lower-case hex, hyphens at fixed
    places, so the two orders agree. Consolidating people-50k turned ~0.5M ids into
    text only to sort them (~0.2 s)."""
    return value.int
