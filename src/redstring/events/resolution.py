"""The record model a consolidation trained, kept in the log beside its merges.

Merges are events, so a replay reproduces every decision without refitting; this
event records what those decisions were based on (fields and kinds, m and u per
comparison level, the match rate, the blocking rules), so a later incremental
consolidation scores new records with the same model instead of retraining, and
a reader can audit why two records merged. No projection folds it.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, JsonValue

from redstring.events.base import DomainEvent, register


@register
class ResolutionModelTrained(DomainEvent):
    """The trained record model of one entity type (`TrainedModel.as_dict()`)."""

    event_type: ClassVar[str] = "ResolutionModelTrained"
    schema_version: ClassVar[int] = 1

    entity_type: str = Field(min_length=1)
    #: How many live entities of the type it was trained on.
    trained_on: int = Field(ge=0)
    model: dict[str, JsonValue]
