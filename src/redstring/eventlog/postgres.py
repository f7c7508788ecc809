"""`EventLog` over one PostgreSQL table: the scale-out workspace's source of truth.

Appends are **serialised**, not only checked optimistically. Each append takes one
transaction-scoped advisory lock (`APPEND_LOCK`) before it reads the stream's head,
checks `expected_version` and inserts; `UNIQUE (stream_id, version)` backs the check
up at the storage level. Why serialise when the unique constraint alone would stop
two writers from taking one version: the global position is a sequence, and a
sequence hands out numbers at insert time, not at commit time. Two concurrent
appends could commit positions 11 and 10 in that order; a projection that read 11
and saved its checkpoint there would never see 10. Holding one lock from the
position's allocation to the commit makes positions become visible in order, so a
checkpoint is a safe "everything up to here" from any process. The price is one
append at a time across the database: an append is a few inserts, and extraction,
not appending, is what ingest workers spend their time on (`bench/postgres.py`
measures writers 1/2/4).

A rolled-back append leaves a gap in the positions and never reuses one (a
sequence never goes back), which is all a projection needs.

Payloads are stored as the JSON text `check_append` produced (`text`, not `jsonb`):
`jsonb` would reorder keys and re-parse every embedding payload on the way in.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from redstring.domain.exceptions import ConcurrencyError
from redstring.domain.log import EventHeader, RecordedEvent
from redstring.eventlog._append import StreamsAppender, appended
from redstring.eventlog._checks import check_appends, check_heads, check_read_all
from redstring.eventlog._rows import header, header_fields
from redstring.storage.postgres import ALL_TENANTS, UniqueViolation, create_tables

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.ids import TenantId
    from redstring.domain.log import StreamAppend
    from redstring.storage.postgres import PgDatabase

SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS event_log (
        position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        stream_id text NOT NULL,
        version integer NOT NULL CHECK (version >= 1),
        tenant_id uuid NOT NULL,
        event_type text NOT NULL,
        schema_version integer NOT NULL,
        payload text NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (stream_id, version)
    )
    """,
    "CREATE INDEX IF NOT EXISTS event_log_by_type ON event_log (tenant_id, event_type, position)",
)

#: The tables `SCHEMA` makes that carry the tenant wall (`storage.postgres`).
WALLED = ("event_log",)

#: The advisory-lock key that serialises appends ("RSAP" in ASCII).
APPEND_LOCK = 0x52534150

_HEADER_COLUMNS = "position, stream_id, version, tenant_id, event_type, schema_version"
_COLUMNS = f"{_HEADER_COLUMNS}, payload, recorded_at"


class PostgresEventLog(StreamsAppender):
    """See `redstring.ports.EventLog` for the contract and the module docstring for how."""

    def __init__(self, db: PgDatabase) -> None:
        """Use `PostgresEventLog.create`, which makes the table first."""
        self._db = db

    @classmethod
    async def create(cls, db: PgDatabase) -> PostgresEventLog:
        await create_tables(db, SCHEMA, WALLED)
        return cls(db)

    async def append_streams(
        self, appends: Sequence[StreamAppend], *, tenant_id: TenantId
    ) -> list[int]:
        payloads = check_appends(appends)
        try:
            # ALL_TENANTS: the head check must see a stream another tenant owns.
            async with self._db.transaction(ALL_TENANTS) as conn:
                await conn.execute("SELECT pg_advisory_xact_lock(%s)", (APPEND_LOCK,))
                rows = await (
                    await conn.execute(
                        "SELECT stream_id, (array_agg(tenant_id))[1], max(version) "
                        "FROM event_log WHERE stream_id = ANY(%s) GROUP BY stream_id",
                        ([a.stream_id for a in appends],),
                    )
                ).fetchall()
                check_heads(appends, {r[0]: (r[1], int(r[2])) for r in rows}, tenant_id)
                values = [
                    (
                        append.stream_id,
                        version,
                        tenant_id,
                        event.event_type,
                        event.schema_version,
                        text,
                    )
                    for append, version, event, text in appended(appends, payloads)
                ]
                if values:
                    async with conn.cursor() as cur:
                        await cur.executemany(
                            "INSERT INTO event_log (stream_id, version, tenant_id, event_type, "
                            "schema_version, payload) VALUES (%s, %s, %s, %s, %s, %s)",
                            values,
                        )
        except UniqueViolation as exc:
            # Only reachable by a writer that bypassed the lock (a hand-written insert).
            streams = ", ".join(repr(a.stream_id) for a in appends[:3])
            raise ConcurrencyError(f"stream {streams} was appended to concurrently: {exc}") from exc
        return [a.expected_version + len(a.events) for a in appends]

    async def stream_version(self, stream_id: str, tenant_id: TenantId) -> int:
        """0 for an unknown stream, and for another tenant's (its existence is not told)."""
        async with self._db.read(tenant_id) as conn:
            row = await (
                await conn.execute(
                    "SELECT max(version) FROM event_log WHERE stream_id = %s AND tenant_id = %s",
                    (stream_id, tenant_id),
                )
            ).fetchone()
        return 0 if row is None or row[0] is None else int(row[0])

    async def read_stream(self, stream_id: str, tenant_id: TenantId) -> list[RecordedEvent]:
        async with self._db.read(tenant_id) as conn:
            rows = await (
                await conn.execute(
                    f"SELECT {_COLUMNS} FROM event_log WHERE stream_id = %s AND tenant_id = %s "
                    "ORDER BY version",
                    (stream_id, tenant_id),
                )
            ).fetchall()
        return [_recorded(row) for row in rows]

    async def read_type(self, event_type: str, tenant_id: TenantId) -> list[RecordedEvent]:
        async with self._db.read(tenant_id) as conn:
            rows = await (
                await conn.execute(
                    f"SELECT {_COLUMNS} FROM event_log WHERE tenant_id = %s AND event_type = %s "
                    "ORDER BY position",
                    (tenant_id, event_type),
                )
            ).fetchall()
        return [_recorded(row) for row in rows]

    async def read_all(self, *, after: int = 0, limit: int | None = None) -> list[RecordedEvent]:
        return [_recorded(row) for row in await self._after(_COLUMNS, after, limit)]

    async def read_headers(self, *, after: int = 0, limit: int | None = None) -> list[EventHeader]:
        return [header(row) for row in await self._after(_HEADER_COLUMNS, after, limit)]

    async def _after(self, columns: str, after: int, limit: int | None) -> list[tuple[Any, ...]]:
        """`columns` of the events past `after`, in log order, at most `limit`."""
        check_read_all(after, limit)
        async with self._db.read(ALL_TENANTS) as conn:
            return await (
                await conn.execute(
                    f"SELECT {columns} FROM event_log WHERE position > %s "
                    "ORDER BY position LIMIT %s",
                    (after, limit),
                )
            ).fetchall()

    async def last_position(self) -> int:
        async with self._db.read(ALL_TENANTS) as conn:
            row = await (await conn.execute("SELECT max(position) FROM event_log")).fetchone()
        return 0 if row is None or row[0] is None else int(row[0])


def _recorded(row: tuple[Any, ...]) -> RecordedEvent:
    payload, recorded_at = row[6:]
    return RecordedEvent.model_construct(
        **header_fields(row), payload=json.loads(payload), recorded_at=recorded_at
    )
