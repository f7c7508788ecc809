"""The record shapes the event-log port speaks.

These are envelopes with a JSON payload; the typed events live in the `events`
layer and serialize into them. They sit in `domain` because the `EventLog`
port (in `ports`, below `events`) must name them.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple, Protocol

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from redstring.domain.ids import TenantId

if TYPE_CHECKING:
    from collections.abc import Sequence


class NewEvent(BaseModel):
    """An event about to be appended."""

    model_config = ConfigDict(extra="forbid")

    event_type: str = Field(min_length=1)
    schema_version: int = Field(ge=1)
    payload: dict[str, JsonValue]

    def payload_json(self) -> str:
        """The payload as the log stores it; `ValueError` for NaN or infinity (not JSON)."""
        return json.dumps(self.payload, allow_nan=False, ensure_ascii=False, sort_keys=True)


class Appendable(Protocol):
    """What `EventLog.append` reads of an event: a `NewEvent`, or a typed event
    (`events.DomainEvent`) that serialises its own payload in one pass."""

    @property
    def event_type(self) -> str: ...

    @property
    def schema_version(self) -> int: ...

    def payload_json(self) -> str:
        """The payload as JSON text; `ValueError` or `TypeError` when it is not JSON."""
        ...


class StreamAppend(NamedTuple):
    """One stream's part of an append to several streams at once
    (`EventLog.append_streams`): its events and the version it is expected at."""

    stream_id: str
    events: Sequence[Appendable]
    expected_version: int


class EventHeader(BaseModel):
    """Where an event sits in the log and what it is, without its payload.

    Enough to pass over an event a projection does not handle, or to fold one this
    process appended and still holds typed (`FreshEvents`), without reading and
    parsing its JSON: a consolidation's merges were parsed once per projection.
    `position` is global across streams and tenants and strictly increasing
    (gaps are allowed); `version` counts events within the stream from 1.
    """

    model_config = ConfigDict(extra="forbid")

    position: int = Field(ge=1)
    stream_id: str
    version: int = Field(ge=1)
    tenant_id: TenantId
    event_type: str
    schema_version: int


class RecordedEvent(EventHeader):
    """An event as the log stored it: its header, payload and time of recording."""

    payload: dict[str, JsonValue]
    recorded_at: datetime
