"""Entities: the nodes of a tenant's graph."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator, model_validator

from redstring.domain.blocking import normalized_blocking_keys
from redstring.domain.ids import EntityId, TenantId
from redstring.domain.normalization import normalize_name
from redstring.domain.provenance import Provenance


class Entity(BaseModel):
    """A typed thing in one tenant's graph.

    `normalized_name` and `blocking_keys` are derived when not given, so a caller
    constructing an entity by hand gets the same keys ingestion would. They stay
    fields (rather than properties) because an extractor may know a better
    normalized form, and stores index the keys.
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=False)

    id: EntityId
    tenant_id: TenantId
    name: str
    normalized_name: str = ""
    entity_type: str = Field(min_length=1)
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    properties: dict[str, JsonValue] = Field(default_factory=dict)
    provenance: list[Provenance] = Field(default_factory=list)
    blocking_keys: list[str] = Field(default_factory=list)

    @field_validator("name")
    @classmethod
    def _name_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("an entity name must not be blank")
        return value

    @model_validator(mode="after")
    def _derive(self) -> Entity:
        # Normalized once for both (a records import builds 10k entities a batch);
        # an entity read back from a store has both and normalizes nothing.
        if not self.normalized_name or not self.blocking_keys:
            normalized = normalize_name(self.name)
            if not self.normalized_name:
                self.normalized_name = normalized
            if not self.blocking_keys:
                self.blocking_keys = normalized_blocking_keys(normalized, self.entity_type)
        return self


#: Marks a name that only repeats the key of the record the entity came from.
KEY_NAME_MARK = "#"


def key_name(record_key: str) -> str:
    """The name of a record that has none: its key, marked (`named_by_key`)."""
    return f"{KEY_NAME_MARK}{record_key}"


def named_by_key(entity: Entity) -> bool:
    """Whether the entity's name is only its record's key (`key_name`): such a
    record is kept for its other fields, and its name says nothing about who it is,
    so nothing compares or prefers it as a name. A record's provenance ends with
    "#" and its key, which the name then repeats."""
    return entity.name.startswith(KEY_NAME_MARK) and any(
        p.method == "record" and p.source_id.endswith(entity.name) for p in entity.provenance
    )
