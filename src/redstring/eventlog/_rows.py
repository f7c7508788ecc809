"""Stored event rows into the log's models, shared by the SQL adapters.

Both select an event's columns in one order -- position, stream, version, tenant,
type, schema version, then payload and time of recording -- and build the models
without re-validating: every row was validated on the way in, and re-validating
embedding payloads would dominate a replay.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from uuid import UUID

from redstring.domain.ids import TenantId
from redstring.domain.log import EventHeader

if TYPE_CHECKING:
    from collections.abc import Sequence


def header_fields(row: Sequence[Any]) -> dict[str, Any]:
    """The header of a row's first six columns, as model fields. The tenant comes as
    text (SQLite) or as a UUID (PostgreSQL)."""
    position, stream_id, version, tenant, event_type, schema_version = row[:6]
    return {
        "position": position,
        "stream_id": stream_id,
        "version": version,
        "tenant_id": TenantId(tenant if isinstance(tenant, UUID) else UUID(str(tenant))),
        "event_type": event_type,
        "schema_version": schema_version,
    }


def header(row: Sequence[Any]) -> EventHeader:
    return EventHeader.model_construct(**header_fields(row))
