"""The fold loop every projection shares: read after the checkpoint, apply, advance.

A projection owns a set of event types (`handles`); every other event is passed
over (its position still advances the checkpoint), which is what lets a chunk
projection and a graph projection read the same log. Events are decoded into
their typed classes before folding, so a malformed payload fails as an
`EventSchemaError` at a known position rather than as a `KeyError` deep inside
a store. A batch is read as headers first; its payloads are read only when an
event it handles is not one this process appended and still holds (`FreshEvents`).
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar

from redstring.domain.exceptions import ProjectionError, RedstringError
from redstring.domain.log import RecordedEvent
from redstring.events.base import decode
from redstring.events.ingest import DocumentExtracted
from redstring.events.merge import EntitiesMerged
from redstring.events.streams import merge_stream

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterable, Sequence
    from uuid import UUID

    from redstring.domain.ids import TenantId
    from redstring.domain.log import EventHeader
    from redstring.events.base import DomainEvent
    from redstring.events.ingest import DocumentRetracted
    from redstring.ports.event_log import EventLog
    from redstring.projections.checkpoints import CheckpointStore

#: Events folded per transaction when the checkpoint store is atomic. Large enough
#: that commit overhead is amortized, small enough that one transaction stays short.
DEFAULT_BATCH_SIZE = 256


#: Typed events `FreshEvents` holds at most; past it, events are decoded as usual.
FRESH_LIMIT = 20_000


class FreshEvents:
    """The typed events this process appended and its projections have not all folded.

    A projection folding an event it finds here skips decoding it: re-validating a
    merge's snapshots or an import's thousand entities, once per projection, cost
    more than folding them. Each event was validated when it was built and equals its
    decoded payload (replay, which decodes everything, is tested against live folds).
    Keyed by (tenant, stream, version), which names one stored event only while the
    append is committed: whoever appends must `clear` this when a transaction holding
    appends rolls back (`Workspace.atomic` does).

    It also keeps the batches of headers read since the last append or `clear`, so
    the projections of one catch-up, which read the same batches, read each once
    (voters: 2.4k merges read as 7.2k headers). A kept batch is what a read would
    have returned a moment earlier: an event appended since lies after it and is
    read by the projection's next batch. Empty batches are not kept: a projection
    asks for the batch after its checkpoint again on its next catch-up.
    """

    def __init__(self, limit: int = FRESH_LIMIT) -> None:
        self._limit = limit
        self._events: dict[tuple[TenantId, str, int], DomainEvent] = {}
        self._headers: dict[tuple[int, int], Sequence[EventHeader]] = {}

    def add(self, stream_id: str, first_version: int, events: Sequence[DomainEvent]) -> None:
        self._headers.clear()
        if len(self._events) + len(events) > self._limit:
            return
        for version, event in enumerate(events, start=first_version):
            self._events[(event.tenant_id, stream_id, version)] = event

    def get(self, recorded: EventHeader) -> DomainEvent | None:
        event = self._events.get((recorded.tenant_id, recorded.stream_id, recorded.version))
        if event is None or event.event_type != recorded.event_type:
            return None
        return event

    def clear(self) -> None:
        self._events.clear()
        self._headers.clear()

    def headers(self, after: int, limit: int) -> Sequence[EventHeader] | None:
        """The batch of headers after `after` another projection read, if kept."""
        return self._headers.get((after, limit))

    def keep_headers(self, after: int, limit: int, headers: Sequence[EventHeader]) -> None:
        if headers:
            self._headers[(after, limit)] = headers


class Projection(ABC):
    """Folds the log into one store. Subclasses say what they handle and how to apply it."""

    handles: ClassVar[frozenset[str]]

    def __init__(
        self,
        name: str,
        log: EventLog,
        checkpoints: CheckpointStore,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        fresh: FreshEvents | None = None,
    ) -> None:
        self._fresh = fresh
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.name = name
        self._log = log
        self._checkpoints = checkpoints
        self._batch_size = batch_size
        # Two concurrent catch-ups would fold the same events twice; harmless for
        # idempotent folds, but wasteful and confusing in a trace.
        self._lock = asyncio.Lock()

    async def position(self) -> int:
        """The last log position this projection has folded."""
        return await self._checkpoints.position(self.name)

    async def catch_up(self) -> int:
        """Fold every event after the checkpoint; return how many events were read.

        On an error the checkpoint stays before the failing event (atomic stores:
        before its batch, whose writes are rolled back) and a `ProjectionError`
        names the position.
        """
        async with self._lock:
            after = await self._checkpoints.position(self.name)
            read = 0
            while batch := await self._read(after):
                if self._checkpoints.atomic:
                    async with self._checkpoints.unit_of_work():
                        # Inside the unit (a write lock): another process may have
                        # folded this batch since `after` was read; then skip it.
                        moved = await self._checkpoints.position(self.name)
                        if moved != after:
                            after = moved
                            continue
                        await self._fold_batch(batch)
                        await self._checkpoints.save(self.name, batch[-1].position)
                else:
                    for recorded in batch:
                        await self._fold(recorded)
                        await self._checkpoints.save(self.name, recorded.position)
                after = batch[-1].position
                read += len(batch)
            return read

    async def _read(self, after: int) -> Sequence[EventHeader]:
        """The next batch after `after`: its headers alone when every event of it this
        projection handles is fresh (folded without its payload), else whole events."""
        headers = self._fresh.headers(after, self._batch_size) if self._fresh else None
        if headers is None:
            headers = await self._log.read_headers(after=after, limit=self._batch_size)
            if self._fresh is not None:
                self._fresh.keep_headers(after, self._batch_size, headers)
        if any(
            header.event_type in self.handles
            and (self._fresh is None or self._fresh.get(header) is None)
            for header in headers
        ):
            return await self._log.read_all(after=after, limit=self._batch_size)
        return headers

    async def reset(self, tenants: Iterable[TenantId]) -> None:
        """Clear what this projection wrote for `tenants` and rewind the checkpoint to 0."""
        async with self._lock, self._checkpoints.unit_of_work():
            for tenant_id in tenants:
                await self._clear(tenant_id)
            await self._checkpoints.save(self.name, 0)

    async def _fold_batch(self, batch: Sequence[EventHeader]) -> None:
        """Fold a batch that commits as one unit (atomic stores only). A projection
        may override this to write a run of events at once, as long as the result
        equals folding them one by one."""
        for recorded in batch:
            await self._fold(recorded)

    async def _fold_merge_runs(
        self,
        batch: Sequence[EventHeader],
        fold_run: Callable[[Sequence[EntitiesMerged]], Awaitable[None]],
    ) -> None:
        """Fold `batch` one by one except consecutive merges of one tenant, which go to
        `fold_run` together: a consolidation appends merges by the hundred, and one
        store write per run instead of one per merge is most of their cost. `fold_run`
        must equal folding its merges in order."""
        run: list[tuple[EventHeader, EntitiesMerged]] = []

        async def flush() -> None:
            if run:
                try:
                    await fold_run([event for _, event in run])
                except RedstringError as exc:
                    raise ProjectionError(self.name, run[0][0].position, str(exc)) from exc
                run.clear()

        for recorded in batch:
            if recorded.event_type not in self.handles:
                continue
            if recorded.event_type == EntitiesMerged.event_type:
                try:
                    event = self._decode(recorded)
                except RedstringError as exc:
                    raise ProjectionError(self.name, recorded.position, str(exc)) from exc
                if isinstance(event, EntitiesMerged):
                    if run and run[0][1].tenant_id != event.tenant_id:
                        await flush()
                    run.append((recorded, event))
                    continue
            await flush()
            await self._fold(recorded)
        await flush()

    async def _fold(self, recorded: EventHeader) -> None:
        if recorded.event_type not in self.handles:
            return
        try:
            await self.apply(recorded, self._decode(recorded))
        except ProjectionError:
            raise
        except RedstringError as exc:
            raise ProjectionError(self.name, recorded.position, str(exc)) from exc

    def _decode(self, recorded: EventHeader) -> DomainEvent:
        fresh = self._fresh.get(recorded) if self._fresh is not None else None
        if fresh is not None:
            return fresh
        if not isinstance(recorded, RecordedEvent):
            # `_read` returns headers only when every handled event is fresh.
            raise ProjectionError(self.name, recorded.position, "its payload was not read")
        return decode(recorded)

    @abstractmethod
    async def apply(self, recorded: EventHeader, event: DomainEvent) -> None:
        """Fold one event. Must be idempotent: applying it twice equals applying it once."""

    @abstractmethod
    async def _clear(self, tenant_id: TenantId) -> None:
        """Remove everything this projection's store holds for `tenant_id`."""


async def find_merge(
    log: EventLog, tenant_id: TenantId, merge_id: UUID, *, projection: str, position: int
) -> tuple[RecordedEvent, EntitiesMerged]:
    """The `EntitiesMerged` an undo refers to: version 1 of the merge's own stream.

    The log is the only place the snapshots live, so an undo reads them back from
    it; a missing merge cannot happen when the undo was appended at
    `expected_version=1`, and is a `ProjectionError` otherwise.
    """
    for recorded in await log.read_stream(merge_stream(merge_id), tenant_id):
        event = decode(recorded)
        if isinstance(event, EntitiesMerged):
            return recorded, event
    raise ProjectionError(projection, position, f"MergeUndone names unknown merge {merge_id}")


async def find_superseded(
    log: EventLog, recorded: EventHeader, event: DocumentRetracted, *, projection: str
) -> DocumentExtracted | None:
    """The `DocumentExtracted` a retraction withdraws: `superseded_version` of the
    retraction's own stream. `None` when that version is no extraction (nothing to
    withdraw); the log is append-only, so it cannot have vanished."""
    for found in await log.read_stream(recorded.stream_id, event.tenant_id):
        if found.version == event.superseded_version:
            superseded = decode(found)
            return superseded if isinstance(superseded, DocumentExtracted) else None
    raise ProjectionError(
        projection,
        recorded.position,
        f"DocumentRetracted names version {event.superseded_version} of "
        f"{recorded.stream_id!r}, which the log does not hold",
    )
