"""The event log port: the only thing ingestion writes to."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.ids import TenantId
    from redstring.domain.log import Appendable, EventHeader, RecordedEvent, StreamAppend


class EventLog(Protocol):
    """Append-only, globally ordered, with per-stream optimistic concurrency.

    - `append` writes all of `events` or none. `expected_version` is the stream's
      current version (0 for a new stream); a stale one raises `ConcurrencyError`
      and writes nothing. Returns the stream's new version.
    - `append_streams` is `append` to several streams of one tenant, all of it or
      none (one check of every stream, one write): a consolidation appends each
      merge to its own new stream, thousands in a run. Each stream appears once;
      positions follow the given order. Returns each stream's new version.
    - `read_all(after=p)` returns events with `position > p` in position order;
      `read_headers` the same events' headers, without reading their payloads.
    - `read_type(event_type, tenant)` returns that tenant's events of one type in
      position order (a few decisions among many ingested events, read without
      decoding the rest).
    - A stream belongs to one tenant; appending to it under another tenant raises
      `TenantMismatchError`.
    """

    async def append(
        self,
        stream_id: str,
        events: Sequence[Appendable],
        *,
        tenant_id: TenantId,
        expected_version: int,
    ) -> int: ...

    async def append_streams(
        self, appends: Sequence[StreamAppend], *, tenant_id: TenantId
    ) -> list[int]: ...

    async def stream_version(self, stream_id: str, tenant_id: TenantId) -> int: ...

    async def read_stream(self, stream_id: str, tenant_id: TenantId) -> list[RecordedEvent]: ...

    async def read_all(
        self, *, after: int = 0, limit: int | None = None
    ) -> list[RecordedEvent]: ...

    async def read_headers(
        self, *, after: int = 0, limit: int | None = None
    ) -> list[EventHeader]: ...

    async def read_type(self, event_type: str, tenant_id: TenantId) -> list[RecordedEvent]: ...

    async def last_position(self) -> int: ...
