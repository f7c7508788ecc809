"""The vector store port."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.ids import EntityId, TenantId
    from redstring.domain.vector import VectorMatch, VectorRecord


class VectorStore(Protocol):
    """Tenant-scoped nearest-neighbour search over entity vectors.

    Contract (checked by `redstring.testing.VectorStoreCompliance`):

    - `search` returns at most `k` matches, best first, scored on the scale
      stated in `redstring.domain.vector`; equal scores break by ascending
      entity-id string.
    - Filters (`entity_types`, `min_score`) apply **before** `k`: asking for the
      top 10 persons returns 10 persons when 10 exist, however many
      organisations score higher. Truncating first is the classic defect.
    - `k == 0` returns `[]`; `k < 0` raises `ValueError`.
    - `entity_types=None` means no filter; `[]` matches nothing. A non-string
      type never matches.
    - A vector of the wrong length raises `DimensionMismatchError`; nothing of
      that call is stored.
    - Upserts are idempotent per `(tenant_id, entity_id)`; tenants never cross.
    """

    @property
    def dimension(self) -> int: ...

    async def upsert(self, records: Sequence[VectorRecord], tenant_id: TenantId) -> None: ...

    async def search(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        *,
        k: int = 10,
        entity_types: Sequence[str] | None = None,
        min_score: float | None = None,
    ) -> list[VectorMatch]: ...

    async def delete(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> None: ...

    async def count(self, tenant_id: TenantId) -> int: ...

    async def missing(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> list[EntityId]:
        """Those of `entity_ids` the tenant holds no vector for, in the given order
        (each once): what a search still has to embed."""
        ...

    async def delete_by_tenant(self, tenant_id: TenantId) -> None: ...

    async def prepare(self, tenant_id: TenantId) -> None:
        """Do now what the tenant's next search would otherwise do first (build or
        catch up an approximate index), so that no query pays it. Answers are the
        same with or without it; a store with nothing to prepare does nothing."""
        ...
