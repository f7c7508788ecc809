"""Stream ids: the unit of optimistic concurrency in the log.

A stream belongs to one tenant (the log refuses an append under another), so
any stream named after a caller-chosen string (a document's source id) carries
the tenant too: two tenants each ingesting `README.md` must not collide. Merge
ids are random UUIDs and need no tenant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from uuid import UUID

    from redstring.domain.ids import TenantId


def document_stream(tenant_id: TenantId, source_id: str) -> str:
    """Everything extracted from one document: re-ingesting appends to it."""
    return f"doc:{tenant_id}:{source_id}"


def records_stream(tenant_id: TenantId, source_id: str) -> str:
    """Entities imported from one structured source (a CSV or JSONL file)."""
    return f"records:{tenant_id}:{source_id}"


def embeddings_stream(tenant_id: TenantId, model: str) -> str:
    """Vectors computed by one embedding model for a tenant."""
    return f"embed:{tenant_id}:{model}"


def merge_stream(merge_id: UUID) -> str:
    """One merge decision: `EntitiesMerged` at version 1, `MergeUndone` at version 2.

    Appending the undo with `expected_version=1` is what guarantees that the merge
    exists and is undone at most once.
    """
    return f"merge:{merge_id}"


def model_stream(tenant_id: TenantId, entity_type: str) -> str:
    """The record models trained for one entity type, newest last."""
    return f"model:{tenant_id}:{entity_type}"
