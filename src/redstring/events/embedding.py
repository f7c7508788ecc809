"""The event that puts entity vectors into the vector store."""

from __future__ import annotations

import math
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from redstring.domain.ids import EntityId
from redstring.events.base import DomainEvent, register


class EmbeddedEntity(BaseModel):
    """One entity's vector and the type the vector store filters on."""

    model_config = ConfigDict(extra="forbid")

    entity_id: EntityId
    entity_type: str = Field(min_length=1)
    vector: list[float]


@register
class EntitiesEmbedded(DomainEvent):
    """Vectors from one embedding model. Stored in the log so replay needs no model call.

    Every vector must have `dimension` finite components: a NaN would poison every
    similarity it enters, and a wrong length would fail only later, in the store.
    """

    event_type: ClassVar[str] = "EntitiesEmbedded"
    schema_version: ClassVar[int] = 1

    model: str = Field(min_length=1)
    dimension: int = Field(ge=1)
    vectors: list[EmbeddedEntity]

    @model_validator(mode="after")
    def _shapes(self) -> EntitiesEmbedded:
        for item in self.vectors:
            if len(item.vector) != self.dimension:
                raise ValueError(
                    f"vector for {item.entity_id} has dimension {len(item.vector)}, "
                    f"expected {self.dimension}"
                )
            if not all(math.isfinite(x) for x in item.vector):
                raise ValueError(f"vector for {item.entity_id} has a non-finite component")
        return self
