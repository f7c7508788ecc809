"""Small factories for tests: valid records with everything but the point of the test defaulted."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING
from uuid import UUID, uuid4

import pytest

from redstring.domain.entity import Entity
from redstring.domain.ids import EntityId, RelationshipId, TenantId
from redstring.domain.provenance import Provenance
from redstring.domain.relationship import Relationship

if TYPE_CHECKING:
    from pydantic import JsonValue

#: A fixed tenant so tests that do not care about tenancy still have one.
DEFAULT_TENANT = TenantId(UUID("00000000-0000-4000-8000-0000000000a1"))


def make_provenance(source_id: str = "test") -> Provenance:
    return Provenance(observed_at=datetime.now(UTC), method="test", source_id=source_id)


def make_entity(
    *,
    name: str = "Ada Lovelace",
    entity_type: str = "person",
    tenant_id: TenantId = DEFAULT_TENANT,
    entity_id: EntityId | None = None,
    normalized_name: str = "",
    properties: dict[str, JsonValue] | None = None,
    confidence: float = 1.0,
) -> Entity:
    return Entity(
        id=entity_id if entity_id is not None else EntityId(uuid4()),
        tenant_id=tenant_id,
        name=name,
        normalized_name=normalized_name,
        entity_type=entity_type,
        confidence=confidence,
        properties=dict(properties or {}),
        provenance=[make_provenance()],
    )


def make_relationship(
    source: Entity,
    target: Entity,
    *,
    relationship_type: str = "knows",
    relationship_id: RelationshipId | None = None,
    confidence: float = 1.0,
) -> Relationship:
    return Relationship(
        id=relationship_id if relationship_id is not None else RelationshipId(uuid4()),
        tenant_id=source.tenant_id,
        source_id=source.id,
        target_id=target.id,
        relationship_type=relationship_type,
        confidence=confidence,
        provenance=[make_provenance()],
    )


def other_tenant() -> TenantId:
    return TenantId(uuid4())


class TwoTenants:
    """Fixtures every compliance suite needs: a tenant under test and another one
    whose data must never show through."""

    @pytest.fixture
    def tenant(self) -> TenantId:
        return TenantId(uuid4())

    @pytest.fixture
    def other(self) -> TenantId:
        return TenantId(uuid4())
