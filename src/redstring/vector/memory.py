"""In-memory `VectorStore`: exact cosine scan, a real implementation for tests and small data."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from redstring.domain.exceptions import DimensionMismatchError, InvalidInputError
from redstring.domain.vector import VectorMatch, VectorRecord, score_from_cosine

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.ids import EntityId, TenantId


class InMemoryVectorStore:
    """See `redstring.ports.VectorStore` for the contract."""

    def __init__(self, dimension: int) -> None:
        if dimension < 1:
            raise InvalidInputError(f"dimension must be positive, got {dimension}")
        self._dimension = dimension
        self._records: dict[tuple[TenantId, EntityId], VectorRecord] = {}

    @property
    def dimension(self) -> int:
        return self._dimension

    async def upsert(self, records: Sequence[VectorRecord], tenant_id: TenantId) -> None:
        for record in records:
            if len(record.vector) != self._dimension:
                raise DimensionMismatchError(self._dimension, len(record.vector))
        for record in records:
            self._records[(tenant_id, record.entity_id)] = record.model_copy(deep=True)

    async def search(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        *,
        k: int = 10,
        entity_types: Sequence[str] | None = None,
        min_score: float | None = None,
    ) -> list[VectorMatch]:
        if k < 0:
            raise ValueError(f"k must not be negative, got {k}")
        if len(vector) != self._dimension:
            raise DimensionMismatchError(self._dimension, len(vector), "query vector")
        if k == 0:
            return []
        wanted = None if entity_types is None else {t for t in entity_types if isinstance(t, str)}
        query_norm = math.sqrt(sum(x * x for x in vector))
        matches = []
        for (owner, entity_id), record in self._records.items():
            if owner != tenant_id or (wanted is not None and record.entity_type not in wanted):
                continue
            score = score_from_cosine(_cosine(vector, query_norm, record.vector))
            if min_score is not None and score < min_score:
                continue
            matches.append(
                VectorMatch(entity_id=entity_id, score=score, entity_type=record.entity_type)
            )
        matches.sort(key=lambda match: (-match.score, str(match.entity_id)))
        return matches[:k]

    async def delete(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> None:
        for entity_id in entity_ids:
            self._records.pop((tenant_id, entity_id), None)

    async def count(self, tenant_id: TenantId) -> int:
        return sum(1 for owner, _ in self._records if owner == tenant_id)

    async def missing(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> list[EntityId]:
        return [e for e in dict.fromkeys(entity_ids) if (tenant_id, e) not in self._records]

    async def prepare(self, tenant_id: TenantId) -> None:
        """Nothing to prepare: every search scans."""

    async def delete_by_tenant(self, tenant_id: TenantId) -> None:
        for key in [key for key in self._records if key[0] == tenant_id]:
            del self._records[key]


def _cosine(query: Sequence[float], query_norm: float, other: Sequence[float]) -> float:
    """Cosine similarity; a zero vector is orthogonal to everything (cosine 0)."""
    other_norm = math.sqrt(sum(x * x for x in other))
    if query_norm == 0.0 or other_norm == 0.0:
        return 0.0
    return sum(a * b for a, b in zip(query, other, strict=True)) / (query_norm * other_norm)
