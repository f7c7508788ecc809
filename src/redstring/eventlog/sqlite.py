"""`EventLog` over one SQLite table: the embedded workspace's source of truth.

- One table, `event_log`; the global position is an `INTEGER PRIMARY KEY
  AUTOINCREMENT`, so a position is never reused even after a rolled-back append.
- An append is one transaction (`storage.sqlite.transaction`): `BEGIN IMMEDIATE`
  takes the write lock before the version check, so two writers -- in this
  process or another -- cannot both pass the check; the loser raises
  `ConcurrencyError` and writes nothing. `UNIQUE (stream_id, version)` backs this
  up at the storage level.
- When the connection is already inside a transaction (a caller composing the
  append with other writes), the append becomes a savepoint of it.

Calls run synchronously on the event loop: SQLite appends take microseconds to a
few milliseconds and a single shared connection must not be used from two
threads at once.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID

from redstring.domain.exceptions import ConcurrencyError
from redstring.domain.ids import TenantId
from redstring.domain.log import EventHeader, RecordedEvent
from redstring.eventlog._append import StreamsAppender, appended
from redstring.eventlog._checks import check_appends, check_heads, check_read_all
from redstring.eventlog._rows import header, header_fields
from redstring.storage.sqlite import IntegrityError, open_connection, transaction

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from redstring.domain.log import StreamAppend
    from redstring.storage.sqlite import Connection

SCHEMA = """
CREATE TABLE IF NOT EXISTS event_log (
    position INTEGER PRIMARY KEY AUTOINCREMENT,
    stream_id TEXT NOT NULL,
    version INTEGER NOT NULL CHECK (version >= 1),
    tenant_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    payload TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    UNIQUE (stream_id, version)
)
"""

_HEADER_COLUMNS = "position, stream_id, version, tenant_id, event_type, schema_version"
_COLUMNS = f"{_HEADER_COLUMNS}, payload, recorded_at"

Row = tuple[int, str, int, str, str, int, str, str]

#: Streams whose heads one statement reads: far below SQLite's variable limit.
_STREAMS_PER_READ = 500


class SqliteEventLog(StreamsAppender):
    """See `redstring.ports.EventLog` for the contract and the module docstring for how."""

    def __init__(self, conn: Connection) -> None:
        """Use `conn` (from `storage.sqlite.open_connection`); create the table if missing."""
        self._conn = conn
        with transaction(conn):
            conn.execute(SCHEMA)

    @classmethod
    def open(cls, path: str | Path) -> SqliteEventLog:
        """A log on its own connection to `path` (tests, tools); the workspace shares one."""
        return cls(open_connection(path))

    def close(self) -> None:
        self._conn.close()

    async def append_streams(
        self, appends: Sequence[StreamAppend], *, tenant_id: TenantId
    ) -> list[int]:
        payloads = check_appends(appends)
        now = datetime.now(UTC).isoformat()
        tenant = str(tenant_id)
        try:
            with transaction(self._conn) as conn:
                check_heads(appends, self._stream_heads([a.stream_id for a in appends]), tenant_id)
                conn.executemany(
                    "INSERT INTO event_log (stream_id, version, tenant_id, event_type, "
                    "schema_version, payload, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [
                        (
                            append.stream_id,
                            version,
                            tenant,
                            event.event_type,
                            event.schema_version,
                            text,
                            now,
                        )
                        for append, version, event, text in appended(appends, payloads)
                    ],
                )
        except IntegrityError as exc:
            # Only reachable when a writer bypassed BEGIN IMMEDIATE (e.g. an outer
            # deferred transaction): the UNIQUE constraint caught the race instead.
            if "UNIQUE" not in str(exc):
                raise
            streams = ", ".join(repr(a.stream_id) for a in appends[:3])
            raise ConcurrencyError(f"stream {streams} was appended to concurrently: {exc}") from exc
        return [a.expected_version + len(a.events) for a in appends]

    def _stream_heads(self, stream_ids: Sequence[str]) -> dict[str, tuple[TenantId, int]]:
        """Owner and version of each of `stream_ids` that has events."""
        heads: dict[str, tuple[TenantId, int]] = {}
        for first in range(0, len(stream_ids), _STREAMS_PER_READ):
            chunk = stream_ids[first : first + _STREAMS_PER_READ]
            marks = ", ".join("?" * len(chunk))
            for stream_id, tenant, version in self._conn.execute(
                f"SELECT stream_id, tenant_id, max(version) FROM event_log "
                f"WHERE stream_id IN ({marks}) GROUP BY stream_id",
                chunk,
            ):
                heads[stream_id] = (TenantId(UUID(tenant)), int(version))
        return heads

    async def stream_version(self, stream_id: str, tenant_id: TenantId) -> int:
        """0 for an unknown stream, and for another tenant's (its existence is not told)."""
        owner, current = self._stream_heads([stream_id]).get(stream_id, (tenant_id, 0))
        return current if owner == tenant_id else 0

    async def read_stream(self, stream_id: str, tenant_id: TenantId) -> list[RecordedEvent]:
        rows = self._conn.execute(
            f"SELECT {_COLUMNS} FROM event_log WHERE stream_id = ? AND tenant_id = ? "
            "ORDER BY version",
            (stream_id, str(tenant_id)),
        ).fetchall()
        return [_recorded(row) for row in rows]

    async def read_type(self, event_type: str, tenant_id: TenantId) -> list[RecordedEvent]:
        rows = self._conn.execute(
            f"SELECT {_COLUMNS} FROM event_log WHERE event_type = ? AND tenant_id = ? "
            "ORDER BY position",
            (event_type, str(tenant_id)),
        ).fetchall()
        return [_recorded(row) for row in rows]

    async def read_all(self, *, after: int = 0, limit: int | None = None) -> list[RecordedEvent]:
        return [_recorded(row) for row in self._after(_COLUMNS, after, limit)]

    async def read_headers(self, *, after: int = 0, limit: int | None = None) -> list[EventHeader]:
        return [header(row) for row in self._after(_HEADER_COLUMNS, after, limit)]

    def _after(self, columns: str, after: int, limit: int | None) -> list[Any]:
        """`columns` of the events past `after`, in log order, at most `limit`."""
        check_read_all(after, limit)
        return self._conn.execute(
            f"SELECT {columns} FROM event_log WHERE position > ? ORDER BY position LIMIT ?",
            (after, -1 if limit is None else limit),
        ).fetchall()

    async def last_position(self) -> int:
        row = self._conn.execute("SELECT MAX(position) FROM event_log").fetchone()
        return 0 if row is None or row[0] is None else int(row[0])


def _recorded(row: Row) -> RecordedEvent:
    payload, recorded_at = row[6:]
    return RecordedEvent.model_construct(
        **header_fields(row),
        payload=json.loads(payload),
        recorded_at=datetime.fromisoformat(recorded_at),
    )
