"""Where each projection remembers the log position it has folded up to.

Two kinds, and the projection behaves differently for each:

- `SqliteCheckpointStore` is **atomic**: it lives in the same SQLite file and on the
  same connection as the SQLite graph and vector stores, so a batch of events, the
  store writes they cause and the new checkpoint commit in one transaction
  (`storage.sqlite.transaction`, which the stores' own writes join as savepoints).
  A crash leaves either the whole batch or none of it.
- `InMemoryCheckpointStore` is **not atomic**: the projection then saves the
  checkpoint after every single event, and relies on each event's fold being
  idempotent, so re-applying the one event a crash interrupted is harmless.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Protocol

from redstring.domain.exceptions import InvalidInputError
from redstring.storage.sqlite import transaction

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from contextlib import AbstractAsyncContextManager

    from redstring.storage.sqlite import Connection


class CheckpointStore(Protocol):
    """Projection name -> last folded position (0 when it has folded nothing)."""

    @property
    def atomic(self) -> bool:
        """True when `unit_of_work` makes store writes and `save` commit together."""
        ...

    async def position(self, name: str) -> int: ...

    async def save(self, name: str, position: int) -> None: ...

    def unit_of_work(self) -> AbstractAsyncContextManager[None]:
        """Everything inside commits together (atomic stores) or as it goes (others)."""
        ...


def _check(name: str, position: int) -> None:
    if not name:
        raise InvalidInputError("a projection name must not be empty")
    if position < 0:
        raise InvalidInputError(f"a checkpoint position must be >= 0, got {position}")


class InMemoryCheckpointStore:
    """Checkpoints in a dict, for the memory workspace and tests. Not atomic."""

    atomic = False

    def __init__(self) -> None:
        self._positions: dict[str, int] = {}

    async def position(self, name: str) -> int:
        return self._positions.get(name, 0)

    async def save(self, name: str, position: int) -> None:
        _check(name, position)
        self._positions[name] = position

    @asynccontextmanager
    async def unit_of_work(self) -> AsyncIterator[None]:
        yield


class SqliteCheckpointStore:
    """Checkpoints in `projection_checkpoints(name, position)` on the stores' connection."""

    atomic = True

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        with transaction(conn):
            conn.execute(
                "CREATE TABLE IF NOT EXISTS projection_checkpoints ("
                "name TEXT PRIMARY KEY, position INTEGER NOT NULL CHECK (position >= 0))"
            )

    async def position(self, name: str) -> int:
        row = self._conn.execute(
            "SELECT position FROM projection_checkpoints WHERE name = ?", (name,)
        ).fetchone()
        return 0 if row is None else int(row[0])

    async def save(self, name: str, position: int) -> None:
        _check(name, position)
        with transaction(self._conn):
            self._conn.execute(
                "INSERT INTO projection_checkpoints (name, position) VALUES (?, ?) "
                "ON CONFLICT (name) DO UPDATE SET position = excluded.position",
                (name, position),
            )

    @asynccontextmanager
    async def unit_of_work(self) -> AsyncIterator[None]:
        with transaction(self._conn):
            yield
