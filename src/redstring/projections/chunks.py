"""The chunk projection: `ChunksStored` folded into a `ChunkStore`.

Each event replaces its document's chunks whole (see `redstring.events.chunks`),
so folding it twice equals folding it once, and a changed document leaves no chunk
of its older text behind. Merges need no fold here: a chunk names the entities that
were extracted from it, and readers resolve those ids through the graph's aliases.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from redstring.events.chunks import ChunksStored
from redstring.projections.base import Projection

if TYPE_CHECKING:
    from redstring.domain.ids import TenantId
    from redstring.domain.log import EventHeader
    from redstring.events.base import DomainEvent
    from redstring.ports.chunk_store import ChunkStore
    from redstring.ports.event_log import EventLog
    from redstring.projections.base import FreshEvents
    from redstring.projections.checkpoints import CheckpointStore


class ChunkProjection(Projection):
    """Keeps a `ChunkStore` equal to the fold of the log (see the module docstring)."""

    handles: ClassVar[frozenset[str]] = frozenset({ChunksStored.event_type})

    def __init__(
        self,
        chunks: ChunkStore,
        log: EventLog,
        checkpoints: CheckpointStore,
        *,
        name: str = "chunks",
        batch_size: int = 256,
        fresh: FreshEvents | None = None,
    ) -> None:
        super().__init__(name, log, checkpoints, batch_size=batch_size, fresh=fresh)
        self.chunks = chunks

    async def _clear(self, tenant_id: TenantId) -> None:
        await self.chunks.delete_by_tenant(tenant_id)

    async def apply(self, recorded: EventHeader, event: DomainEvent) -> None:
        if isinstance(event, ChunksStored):
            await self.chunks.delete_source(event.source_id, event.tenant_id)
            await self.chunks.upsert(event.records(), event.tenant_id)
