"""The PostgreSQL event log keeps every EventLog promise, under the same suite as SQLite's."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from redstring.eventlog.postgres import PostgresEventLog
from redstring.testing.event_log import EventLogCompliance

if TYPE_CHECKING:
    from redstring.ports.event_log import EventLog
    from redstring.storage.postgres import PgDatabase


class TestPostgresEventLog(EventLogCompliance):
    @pytest.fixture
    async def log(self, pg_db: PgDatabase) -> EventLog:
        return await PostgresEventLog.create(pg_db)
