"""In-memory `EventLog`: a real single-process implementation for tests and `Workspace.memory()`.

It stores what the SQLite log would store -- payloads as parsed JSON, so a value
that would not survive the round trip fails here too -- and hands back copies,
so neither the caller's `NewEvent` nor a returned record aliases the log.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from redstring.domain.log import EventHeader, RecordedEvent
from redstring.eventlog._append import StreamsAppender, appended
from redstring.eventlog._checks import check_appends, check_heads, check_read_all

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.ids import TenantId
    from redstring.domain.log import StreamAppend


class InMemoryEventLog(StreamsAppender):
    """See `redstring.ports.EventLog` for the contract."""

    def __init__(self) -> None:
        self._events: list[RecordedEvent] = []
        #: stream id -> (owning tenant, indexes into `_events`)
        self._streams: dict[str, tuple[TenantId, list[int]]] = {}

    async def append_streams(
        self, appends: Sequence[StreamAppend], *, tenant_id: TenantId
    ) -> list[int]:
        payloads = check_appends(appends)
        heads = {
            a.stream_id: (owner, len(indexes))
            for a in appends
            if a.stream_id in self._streams
            for owner, indexes in [self._streams[a.stream_id]]
        }
        check_heads(appends, heads, tenant_id)
        now = datetime.now(UTC)
        start = self._events[-1].position if self._events else 0
        for offset, (append, version, event, text) in enumerate(
            appended(appends, payloads), start=1
        ):
            _, indexes = self._streams.setdefault(append.stream_id, (tenant_id, []))
            indexes.append(len(self._events))
            self._events.append(
                RecordedEvent(
                    position=start + offset,
                    stream_id=append.stream_id,
                    version=version,
                    tenant_id=tenant_id,
                    event_type=event.event_type,
                    schema_version=event.schema_version,
                    payload=json.loads(text),
                    recorded_at=now,
                )
            )
        return [a.expected_version + len(a.events) for a in appends]

    async def stream_version(self, stream_id: str, tenant_id: TenantId) -> int:
        """0 for an unknown stream, and for another tenant's (its existence is not told)."""
        owner, indexes = self._streams.get(stream_id, (tenant_id, []))
        return len(indexes) if owner == tenant_id else 0

    async def read_stream(self, stream_id: str, tenant_id: TenantId) -> list[RecordedEvent]:
        owner, indexes = self._streams.get(stream_id, (tenant_id, []))
        if owner != tenant_id:
            return []
        return [self._events[i].model_copy(deep=True) for i in indexes]

    async def read_type(self, event_type: str, tenant_id: TenantId) -> list[RecordedEvent]:
        return [
            e.model_copy(deep=True)
            for e in self._events
            if e.event_type == event_type and e.tenant_id == tenant_id
        ]

    async def read_all(self, *, after: int = 0, limit: int | None = None) -> list[RecordedEvent]:
        check_read_all(after, limit)
        # Positions are dense from 1 here, so `after` is also the index of the next event.
        selected = self._events[after:] if limit is None else self._events[after : after + limit]
        return [event.model_copy(deep=True) for event in selected]

    async def read_headers(self, *, after: int = 0, limit: int | None = None) -> list[EventHeader]:
        check_read_all(after, limit)
        selected = self._events[after:] if limit is None else self._events[after : after + limit]
        return [
            EventHeader(
                position=event.position,
                stream_id=event.stream_id,
                version=event.version,
                tenant_id=event.tenant_id,
                event_type=event.event_type,
                schema_version=event.schema_version,
            )
            for event in selected
        ]

    async def last_position(self) -> int:
        return self._events[-1].position if self._events else 0
