"""Relationships: directed, typed edges between two entities of one tenant."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from redstring.domain.ids import EntityId, RelationshipId, TenantId
from redstring.domain.provenance import Provenance


class Relationship(BaseModel):
    """`source --relationship_type--> target`. Never a self-loop.

    A self-loop carries no information a graph query can use and is almost
    always an extraction error (or a merge collapsing two endpoints), so the
    type refuses it and the merge code drops it explicitly.
    """

    model_config = ConfigDict(extra="forbid")

    id: RelationshipId
    tenant_id: TenantId
    source_id: EntityId
    target_id: EntityId
    relationship_type: str = Field(min_length=1)
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    properties: dict[str, JsonValue] = Field(default_factory=dict)
    provenance: list[Provenance] = Field(default_factory=list)

    @model_validator(mode="after")
    def _no_self_loop(self) -> Relationship:
        if self.source_id == self.target_id:
            raise ValueError("a relationship may not connect an entity to itself")
        return self
