"""Where a fact came from: enough to show a user the sentence behind an entity."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class Provenance(BaseModel):
    """Source, chunk, character span, method, model and time of one observation.

    `observed_at` must be timezone-aware: a naive time read back on a machine in
    another zone silently shifts, and replay compares times across machines.
    """

    model_config = ConfigDict(extra="forbid")

    observed_at: datetime
    #: How the fact was obtained: "llm", "offline", "record", "merge", ...
    method: str = Field(min_length=1)
    #: Model name and version for extracted facts; `None` for records.
    model: str | None = None
    #: The document or record id the fact came from.
    source_id: str = Field(min_length=1)
    chunk_index: int | None = Field(default=None, ge=0)
    char_start: int | None = Field(default=None, ge=0)
    char_end: int | None = Field(default=None, ge=0)

    @field_validator("observed_at")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError("observed_at must be timezone-aware")
        return value

    @model_validator(mode="after")
    def _span(self) -> Provenance:
        if (self.char_start is None) != (self.char_end is None):
            raise ValueError("char_start and char_end are given together or not at all")
        if (
            self.char_start is not None
            and self.char_end is not None
            and self.char_end < self.char_start
        ):
            raise ValueError("char_end is before char_start")
        return self
