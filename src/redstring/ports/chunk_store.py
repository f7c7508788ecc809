"""The chunk store port."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.chunk import ChunkMatch, ChunkRecord
    from redstring.domain.ids import TenantId


class ChunkStore(Protocol):
    """Tenant-scoped full-text search over the text of document chunks.

    Contract (checked by `redstring.testing.ChunkStoreCompliance`):

    - `search` ranks by BM25 exactly as `redstring.domain.chunk` defines it, over
      the statistics of the tenant's own chunks (N, document frequencies, average
      length): another tenant's text never changes a score. At most `k` matches,
      best first; equal scores break by ascending `chunk_id` string. A chunk
      matches when it holds at least one query term.
    - The query is text, never syntax: it is reduced to `domain.chunk.query_terms`
      and each term searched as a word, so quotes, `AND`/`OR`/`NOT`/`NEAR`, `*`,
      `^`, `-` and `column:` never raise and never change what is searched. A
      query with no terms matches nothing.
    - Filters (`source_ids`) apply **before** `k`; `None` is no filter and `[]`
      matches nothing.
    - `k == 0` returns `[]`; `k < 0` raises `ValueError`.
    - Upserts are idempotent per `(tenant_id, chunk_id)` and replace the chunk
      whole: text that was replaced is no longer found. Ids may collide across
      tenants; tenants never cross.
    - Reads return copies.
    """

    async def upsert(self, chunks: Sequence[ChunkRecord], tenant_id: TenantId) -> None: ...

    async def search(
        self,
        query: str,
        tenant_id: TenantId,
        *,
        k: int = 10,
        source_ids: Sequence[str] | None = None,
    ) -> list[ChunkMatch]: ...

    async def get(self, chunk_ids: Sequence[str], tenant_id: TenantId) -> list[ChunkRecord]:
        """The known chunks among `chunk_ids`, in the order asked, each once."""
        ...

    async def delete(self, chunk_ids: Sequence[str], tenant_id: TenantId) -> None: ...

    async def delete_source(self, source_id: str, tenant_id: TenantId) -> None:
        """Remove every chunk of one document (a re-ingested document replaces them)."""
        ...

    async def count(self, tenant_id: TenantId) -> int: ...

    async def delete_by_tenant(self, tenant_id: TenantId) -> None: ...
