"""The event that puts entity vectors into the vector store.

Vectors travel in the log as base64 of little-endian float32 (schema v2): JSON
floats cost ~20 characters a component, so one 384-d vector was ~8 KB and
embeddings were 60% of a workspace file; packed, it is ~2 KB. float32 loses
nothing a model produced (models compute in float32) and is what the vector
stores keep anyway. Version 1 logs (JSON float lists) still decode.
"""

from __future__ import annotations

import base64
import math
import struct
from typing import Annotated, ClassVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer, model_validator

from redstring.domain.ids import EntityId
from redstring.events.base import DomainEvent, register


def _unpack(value: object) -> object:
    """A v2 base64 string becomes floats; a v1 list passes through to validation."""
    if isinstance(value, str):
        raw = base64.b64decode(value.encode("ascii"), validate=True)
        if len(raw) % 4:
            raise ValueError("a packed vector must be a whole number of float32 values")
        return list(struct.unpack(f"<{len(raw) // 4}f", raw))
    return value


def _pack(vector: list[float]) -> str:
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")


#: Floats in Python, packed float32 base64 in the log's JSON.
PackedVector = Annotated[
    list[float],
    BeforeValidator(_unpack),
    PlainSerializer(_pack, return_type=str, when_used="json"),
]


class EmbeddedEntity(BaseModel):
    """One entity's vector and the type the vector store filters on."""

    model_config = ConfigDict(extra="forbid")

    entity_id: EntityId
    entity_type: str = Field(min_length=1)
    vector: PackedVector


@register
class EntitiesEmbedded(DomainEvent):
    """Vectors from one embedding model. Stored in the log so replay needs no model call.

    Every vector must have `dimension` finite components: a NaN would poison every
    similarity it enters, and a wrong length would fail only later, in the store.
    """

    event_type: ClassVar[str] = "EntitiesEmbedded"
    schema_version: ClassVar[int] = 2

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
            # A finite sum proves every component finite (an inf or nan would carry
            # into it), in one C loop; only an infinite sum needs the component scan.
            if not math.isfinite(sum(item.vector)) and not all(
                math.isfinite(x) for x in item.vector
            ):
                raise ValueError(f"vector for {item.entity_id} has a non-finite component")
        return self


@register
class EntitiesEmbeddedV1(EntitiesEmbedded):
    """Reads version-1 records, whose vectors are JSON float lists. Same fields."""

    schema_version: ClassVar[int] = 1
