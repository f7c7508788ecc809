"""`CheckpointStore` in PostgreSQL, atomic with the PostgreSQL stores it checkpoints.

`unit_of_work` opens a `PgDatabase` transaction and binds its connection to the
running task; every store call the projection makes inside joins it as a savepoint
(see `redstring.storage.postgres`), so a batch of events, the writes they cause and
the new checkpoint commit together. A process killed mid-fold leaves the checkpoint
before the batch and none of the batch's writes, and the next catch-up -- from this
process or any other -- folds it again.

Projections catch up from any process. Two processes folding at once would each
fold the batch after the checkpoint they read, and a slow one could re-apply old
events after a fast one had applied newer ones (a merged-away entity would
reappear until it caught up again). So `unit_of_work` takes one transaction-scoped
advisory lock (`FOLD_LOCK`) and `Projection.catch_up` re-reads its checkpoint
inside the unit: a batch another process already folded is skipped, not refolded.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from redstring.domain.exceptions import InvalidInputError
from redstring.storage.postgres import ALL_TENANTS, create_tables

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from redstring.storage.postgres import PgDatabase

#: The advisory-lock key one fold holds until it commits ("RSFL" in ASCII).
FOLD_LOCK = 0x5253464C

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS projection_checkpoints (
        name text PRIMARY KEY,
        position bigint NOT NULL CHECK (position >= 0)
    )""",
)
#: Checkpoints are cross-tenant by contract: no tenant column, no wall.
WALLED: tuple[str, ...] = ()


class PostgresCheckpointStore:
    """Checkpoints in `projection_checkpoints(name, position)`. Atomic (see the module)."""

    atomic = True

    def __init__(self, db: PgDatabase) -> None:
        """Use `PostgresCheckpointStore.create`, which makes the table first."""
        self._db = db

    @classmethod
    async def create(cls, db: PgDatabase) -> PostgresCheckpointStore:
        await create_tables(db, SCHEMA, WALLED)
        return cls(db)

    async def position(self, name: str) -> int:
        # A checkpoint covers every tenant's events: it is cross-tenant by contract.
        async with self._db.read(ALL_TENANTS) as conn:
            row = await (
                await conn.execute(
                    "SELECT position FROM projection_checkpoints WHERE name = %s", (name,)
                )
            ).fetchone()
        return 0 if row is None else int(row[0])

    async def save(self, name: str, position: int) -> None:
        if not name:
            raise InvalidInputError("a projection name must not be empty")
        if position < 0:
            raise InvalidInputError(f"a checkpoint position must be >= 0, got {position}")
        async with self._db.transaction(ALL_TENANTS) as conn:
            await conn.execute(
                "INSERT INTO projection_checkpoints (name, position) VALUES (%s, %s) "
                "ON CONFLICT (name) DO UPDATE SET position = excluded.position",
                (name, position),
            )

    @asynccontextmanager
    async def unit_of_work(self) -> AsyncIterator[None]:
        async with self._db.transaction(ALL_TENANTS) as conn:
            await conn.execute("SELECT pg_advisory_xact_lock(%s)", (FOLD_LOCK,))
            yield
