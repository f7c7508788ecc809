"""`storage.sqlite.transaction`: savepoints where a caller may catch an error inside,
none inside a block begun `whole`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from redstring.storage.sqlite import open_connection, transaction

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from redstring.storage.sqlite import Connection


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[Connection]:
    connection = open_connection(tmp_path / "t.db")
    connection.execute("CREATE TABLE rows (value TEXT NOT NULL)")
    yield connection
    connection.close()


def _values(conn: Connection) -> list[str]:
    return [value for (value,) in conn.execute("SELECT value FROM rows ORDER BY value")]


def _write_then_fail(conn: Connection, value: str, *, whole: bool = False) -> None:
    with transaction(conn, whole=whole):
        conn.execute("INSERT INTO rows VALUES (?)", (value,))
        raise RuntimeError("the write fails after its insert")


def _whole_block_failing_late(conn: Connection) -> None:
    with transaction(conn, whole=True):
        with transaction(conn):
            conn.execute("INSERT INTO rows VALUES ('c')")
        _write_then_fail(conn, "d")


def test_a_whole_block_takes_no_savepoint_and_rolls_back_whole(conn: Connection) -> None:
    """Catches a whole block whose nested store calls still open savepoints, or
    one that commits what came before an error escaping a nested call."""
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    with transaction(conn, whole=True):
        with transaction(conn):
            conn.execute("INSERT INTO rows VALUES ('a')")
        with transaction(conn):
            conn.execute("INSERT INTO rows VALUES ('b')")
    conn.set_trace_callback(None)
    assert not [s for s in statements if "SAVEPOINT" in s.upper()]
    assert _values(conn) == ["a", "b"]
    with pytest.raises(RuntimeError):
        _whole_block_failing_late(conn)
    assert _values(conn) == ["a", "b"]


def test_nested_transactions_keep_their_savepoints_outside_a_whole_block(
    conn: Connection,
) -> None:
    """Catches the whole mode outliving its block (or leaking into a block begun
    without it): a caller that catches a nested error would then commit the nested
    call's half-done writes. `whole` asked of a nested transaction changes nothing."""
    with transaction(conn, whole=True):
        conn.execute("INSERT INTO rows VALUES ('first')")
    for whole in (False, True):
        with transaction(conn):
            with pytest.raises(RuntimeError):
                _write_then_fail(conn, f"dropped {whole}", whole=whole)
            conn.execute("INSERT INTO rows VALUES (?)", (f"kept {whole}",))
    assert _values(conn) == ["first", "kept False", "kept True"]
