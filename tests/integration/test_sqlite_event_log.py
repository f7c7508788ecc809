"""The SQLite event log keeps every EventLog promise, plus the ones only a file can break."""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import uuid4

import pytest

from redstring.domain.exceptions import ConcurrencyError
from redstring.domain.ids import TenantId
from redstring.eventlog.sqlite import SqliteEventLog
from redstring.storage.sqlite import IntegrityError, open_connection, transaction
from redstring.testing.event_log import EventLogCompliance, event

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from redstring.ports.event_log import EventLog


class TestSqliteEventLog(EventLogCompliance):
    @pytest.fixture
    def log(self, tmp_path: Path) -> Iterator[EventLog]:
        log = SqliteEventLog.open(tmp_path / "log.db")
        yield log
        log.close()


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "log.db"


TENANT = TenantId(uuid4())


async def test_a_failure_in_the_middle_of_an_append_leaves_no_event_of_it(path: Path) -> None:
    """Catches an append that commits per row: a trigger aborts the third insert of
    five, after two rows were already written inside the transaction."""
    log = SqliteEventLog.open(path)
    await log.append("s", [event(0)], tenant_id=TENANT, expected_version=0)
    conn = open_connection(path)
    conn.execute(
        "CREATE TRIGGER boom BEFORE INSERT ON event_log WHEN NEW.event_type = 'Boom' "
        "BEGIN SELECT RAISE(ABORT, 'boom'); END"
    )
    batch = [event(1), event(2), event(3, "Boom"), event(4), event(5)]
    with pytest.raises(IntegrityError):
        await log.append("s", batch, tenant_id=TENANT, expected_version=1)
    conn.execute("DROP TRIGGER boom")
    assert [e.payload["n"] for e in await log.read_all()] == [0]
    assert await log.append("s", [event(6)], tenant_id=TENANT, expected_version=1) == 2
    log.close()
    conn.close()


async def test_two_connections_to_one_file_cannot_both_append_at_one_version(
    path: Path,
) -> None:
    """Catches a version check done outside the write lock (lost update across processes)."""
    first, second = SqliteEventLog.open(path), SqliteEventLog.open(path)
    assert await first.stream_version("s", TENANT) == await second.stream_version("s", TENANT)
    await first.append("s", [event(1)], tenant_id=TENANT, expected_version=0)
    with pytest.raises(ConcurrencyError):
        await second.append("s", [event(2)], tenant_id=TENANT, expected_version=0)
    assert [e.payload["n"] for e in await second.read_all()] == [1]
    first.close()
    second.close()


async def test_positions_are_never_reused_after_a_rolled_back_append(path: Path) -> None:
    """AUTOINCREMENT, not rowid reuse: a projection that saw position p must never see a
    different event at p."""
    log = SqliteEventLog.open(path)
    await log.append("s", [event(1)], tenant_id=TENANT, expected_version=0)
    await _append_then_fail(log, "s", 1)
    assert await log.read_all() == (await log.read_all())[:1]
    await log.append("t", [event(3)], tenant_id=TENANT, expected_version=0)
    positions = [e.position for e in await log.read_all()]
    assert len(positions) == 2
    assert positions[1] > positions[0]
    log.close()


async def test_an_append_inside_a_caller_transaction_commits_with_it(path: Path) -> None:
    """The append nests as a savepoint; the caller's rollback removes it too."""
    log = SqliteEventLog.open(path)
    await _append_then_fail(log, "s", 0)
    assert await log.read_all() == []
    with transaction(log._conn):
        await log.append("s", [event(1)], tenant_id=TENANT, expected_version=0)
    assert await SqliteEventLog.open(path).stream_version("s", TENANT) == 1
    log.close()


def test_the_connection_is_in_wal_mode_with_sqlite_vec_loaded(path: Path) -> None:
    """Catches a connection opened around the shared factory (no WAL, no vec0)."""
    conn = open_connection(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT vec_version()").fetchone()[0].startswith("v")
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    conn.close()


async def _append_then_fail(log: SqliteEventLog, stream_id: str, version: int) -> None:
    """Append inside a caller's transaction, then fail the caller before it commits."""

    async def caller() -> None:
        with transaction(log._conn):
            await log.append(stream_id, [event(9)], tenant_id=TENANT, expected_version=version)
            raise RuntimeError("caller fails after the append, inside its own transaction")

    with pytest.raises(RuntimeError):
        await caller()
