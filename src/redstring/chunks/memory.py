"""In-memory `ChunkStore`: BM25 computed in Python from an inverted index.

The reference for the SQLite FTS5 adapter: both compute `domain.chunk.bm25` over
one tenant's statistics, and the compliance suite holds both to the same numbers.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from redstring.domain.chunk import ChunkMatch, ChunkRecord, bm25, idf, query_terms, terms

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.ids import TenantId


@dataclass
class _Indexed:
    record: ChunkRecord
    frequencies: Counter[str]
    length: int


@dataclass
class _Tenant:
    chunks: dict[str, _Indexed] = field(default_factory=dict)
    #: term -> ids of the chunks holding it (the document frequency is its size).
    postings: dict[str, set[str]] = field(default_factory=dict)
    total_length: int = 0

    def add(self, record: ChunkRecord) -> None:
        self.remove(record.chunk_id)
        words = terms(record.text)
        frequencies = Counter(words)
        self.chunks[record.chunk_id] = _Indexed(record, frequencies, len(words))
        self.total_length += len(words)
        for term in frequencies:
            self.postings.setdefault(term, set()).add(record.chunk_id)

    def remove(self, chunk_id: str) -> None:
        old = self.chunks.pop(chunk_id, None)
        if old is None:
            return
        self.total_length -= old.length
        for term in old.frequencies:
            holders = self.postings[term]
            holders.discard(chunk_id)
            if not holders:
                del self.postings[term]


class InMemoryChunkStore:
    """See `redstring.ports.ChunkStore` for the contract."""

    def __init__(self) -> None:
        self._tenants: dict[TenantId, _Tenant] = {}

    async def upsert(self, chunks: Sequence[ChunkRecord], tenant_id: TenantId) -> None:
        tenant = self._tenants.setdefault(tenant_id, _Tenant())
        for record in chunks:
            tenant.add(record.model_copy(deep=True))

    async def search(
        self,
        query: str,
        tenant_id: TenantId,
        *,
        k: int = 10,
        source_ids: Sequence[str] | None = None,
    ) -> list[ChunkMatch]:
        if k < 0:
            raise ValueError(f"k must not be negative, got {k}")
        tenant = self._tenants.get(tenant_id)
        if k == 0 or tenant is None or not tenant.chunks:
            return []
        wanted = None if source_ids is None else set(source_ids)
        rows = len(tenant.chunks)
        average = tenant.total_length / rows
        weights = {
            term: idf(rows, len(tenant.postings[term]))
            for term in query_terms(query)
            if term in tenant.postings
        }
        candidates = set().union(*(tenant.postings[term] for term in weights))
        scored = []
        for chunk_id in candidates:
            indexed = tenant.chunks[chunk_id]
            if wanted is not None and indexed.record.source_id not in wanted:
                continue
            score = bm25(indexed.frequencies, indexed.length, average, weights)
            scored.append((score, chunk_id))
        scored.sort(key=lambda pair: (-pair[0], pair[1]))
        return [
            ChunkMatch(chunk=tenant.chunks[chunk_id].record.model_copy(deep=True), score=score)
            for score, chunk_id in scored[:k]
        ]

    async def get(self, chunk_ids: Sequence[str], tenant_id: TenantId) -> list[ChunkRecord]:
        tenant = self._tenants.get(tenant_id)
        if tenant is None:
            return []
        return [
            tenant.chunks[chunk_id].record.model_copy(deep=True)
            for chunk_id in dict.fromkeys(chunk_ids)
            if chunk_id in tenant.chunks
        ]

    async def delete(self, chunk_ids: Sequence[str], tenant_id: TenantId) -> None:
        tenant = self._tenants.get(tenant_id)
        if tenant is not None:
            for chunk_id in chunk_ids:
                tenant.remove(chunk_id)

    async def delete_source(self, source_id: str, tenant_id: TenantId) -> None:
        tenant = self._tenants.get(tenant_id)
        if tenant is not None:
            doomed = [
                cid for cid, kept in tenant.chunks.items() if kept.record.source_id == source_id
            ]
            for chunk_id in doomed:
                tenant.remove(chunk_id)

    async def count(self, tenant_id: TenantId) -> int:
        tenant = self._tenants.get(tenant_id)
        return 0 if tenant is None else len(tenant.chunks)

    async def delete_by_tenant(self, tenant_id: TenantId) -> None:
        self._tenants.pop(tenant_id, None)
