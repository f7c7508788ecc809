"""The one way redstring talks to PostgreSQL: a pool, a tenant-scoped transaction, the walls.

Why one module: the PostgreSQL event log, graph, vector, chunk and checkpoint stores
share a database, and they only compose (a projection's store writes and its
checkpoint committing together) if they agree on how a connection is taken and how a
transaction nests. They do it here, the way `storage.sqlite` does it for SQLite:

- `PgDatabase` holds a psycopg 3 `AsyncConnectionPool`. Every store call runs in
  `db.transaction(tenant)`. Outermost, it checks a connection out of the pool and
  opens a transaction on it; the connection is bound to the running task (a
  `ContextVar`), so a store call made *inside* another's transaction -- the
  projection's `unit_of_work` -- joins it as a savepoint on the same connection
  instead of taking a second one. Store calls from concurrent tasks get their own
  connections: nothing blocks the event loop and no connection is shared between
  tasks.
- Tenant isolation twice over. Every query names its tenant in its `WHERE`; and
  every table carries a row-level-security policy (`tenant_wall`) that shows and
  accepts only the rows of the tenant the transaction declared with
  `SET LOCAL redstring.tenant` (`set_config(..., true)`; `read` declares it for the
  connection's session instead). A query that forgets its
  tenant filter therefore still sees one tenant, and a connection that declared
  none sees nothing. The policy is `FORCE`d, so it binds the tables' owner too; it
  does not bind a superuser or a `BYPASSRLS` role, so run redstring as neither.
  The few calls that are cross-tenant by contract (the log's global `read_all` and
  `read_headers`, a projection's checkpoint) declare `ALL_TENANTS`.
- DDL runs under one transaction-scoped advisory lock (`SCHEMA_LOCK`): two
  processes opening a fresh database at once would otherwise race on
  `CREATE TABLE IF NOT EXISTS` and one would fail on a duplicate catalogue row.
"""

from __future__ import annotations

import asyncio
import weakref
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg import sql
from psycopg_pool import AsyncConnectionPool

from redstring.domain.exceptions import WorkspaceError

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from redstring.domain.ids import TenantId

#: What a connection from the pool is: psycopg's async connection, rows as tuples.
Connection = psycopg.AsyncConnection[tuple[Any, ...]]
#: The blocking connection of `PgDatabase.connect_sync`.
SyncConnection = psycopg.Connection[tuple[Any, ...]]

#: The `redstring.tenant` value of a call that is cross-tenant by contract.
ALL_TENANTS = "*"

#: The advisory-lock key every DDL transaction takes ("RSDL" in ASCII).
SCHEMA_LOCK = 0x5253444C

#: The database errors callers may catch without importing psycopg themselves.
Error = psycopg.Error
UniqueViolation = psycopg.errors.UniqueViolation

#: Seconds `PgDatabase.open` waits for its first connection before giving up.
CONNECT_TIMEOUT_S = 10.0

#: Databases whose pool is open, so `close_pools` can close those of a loop that ends.
_open: weakref.WeakSet[PgDatabase] = weakref.WeakSet()


async def close_pools() -> None:
    """Close every pool opened in the running loop.

    Call it before a loop that used a `PgDatabase` ends (the CLI runs each step in its
    own `asyncio.run`): a pool left open keeps its workers, and one of them caught
    mid-connect by the loop's shutdown could keep `asyncio.run` from returning (seen
    as `redstring search` hanging after it had printed nothing, 2 times in 13 runs).
    """
    loop = asyncio.get_running_loop()
    for db in list(_open):
        if db._loop is loop:
            await db.close()


#: The connection and the tenant it declared, bound to the task running a transaction.
_bound: ContextVar[tuple[PgDatabase, Connection, list[str]] | None] = ContextVar(
    "redstring_pg_bound", default=None
)


class PgDatabase:
    """A pool of connections to one database (and one schema in it) plus the transaction rule.

    The pool belongs to the event loop that first used it. A caller that runs one
    `asyncio.run` after another (the CLI does, one per step) gets a fresh pool in each
    loop: a pool's connections wait on its own loop, and that loop is gone. The
    abandoned pool's sockets close when it is collected.
    """

    def __init__(self, url: str, *, schema: str | None = None, max_size: int = 8) -> None:
        """Nothing connects yet: the first transaction opens the pool, in its loop."""
        self.url = url
        self.schema = schema
        self._max_size = max_size
        # Every pooled connection gives up on a silent server as `connect_sync` does; the
        # pool's own wait bounds only its first connections, not the ones it adds later.
        self._kwargs: dict[str, Any] = {
            "autocommit": True,
            "connect_timeout": int(CONNECT_TIMEOUT_S),
        }
        if schema is not None:
            # pgvector's type lives in `public`, where `CREATE EXTENSION` put it.
            self._kwargs["options"] = f"-c search_path={schema},public"
        self._pool: AsyncConnectionPool[Connection] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        #: The tenant each pooled connection declared for its session (`read`).
        self._declared: weakref.WeakKeyDictionary[Connection, str] = weakref.WeakKeyDictionary()

    @classmethod
    async def open(cls, url: str, *, schema: str | None = None, max_size: int = 8) -> PgDatabase:
        """Connect to `url` now; with `schema`, every table lives in that schema (made if
        missing). `WorkspaceError` when no server answers within `CONNECT_TIMEOUT_S`."""
        db = cls(url, schema=schema, max_size=max_size)
        await db._current_pool()
        if schema is not None:
            async with db.ddl() as conn:
                await conn.execute(
                    sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema))
                )
        return db

    def connect_sync(self) -> SyncConnection:
        """A plain blocking connection (autocommit) for the few synchronous callers: a
        workspace's settings and its schema check on open."""
        try:
            return psycopg.connect(self.url, **self._kwargs)
        except psycopg.Error as exc:
            raise WorkspaceError(
                f"cannot connect to PostgreSQL at {_redact(self.url)}: {exc}"
            ) from exc

    async def _current_pool(self) -> AsyncConnectionPool[Connection]:
        loop = asyncio.get_running_loop()
        if self._pool is None or self._loop is not loop:
            pool: AsyncConnectionPool[Connection] = AsyncConnectionPool(
                self.url, min_size=1, max_size=self._max_size, kwargs=self._kwargs, open=False
            )
            try:
                await pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
            except Exception as exc:
                await pool.close()
                raise WorkspaceError(
                    f"cannot connect to PostgreSQL at {_redact(self.url)}: {exc}"
                ) from exc
            self._pool, self._loop = pool, loop
            _open.add(self)
        return self._pool

    async def close(self) -> None:
        """Close the pool, when it belongs to the running loop (otherwise it is abandoned)."""
        pool, self._pool = self._pool, None
        _open.discard(self)
        if pool is not None and self._loop is asyncio.get_running_loop():
            await pool.close()

    @asynccontextmanager
    async def transaction(self, tenant: TenantId | str) -> AsyncIterator[Connection]:
        """A transaction that sees only `tenant`'s rows (or every tenant's with `ALL_TENANTS`).

        Nested inside another transaction of this database in the same task, it is a
        savepoint of it and declares its own tenant until it ends.
        """
        wanted = str(tenant)
        bound = _bound.get()
        if bound is not None and bound[0] is self:
            _, conn, declared = bound
            outer = declared[0]
            async with conn.transaction():
                if outer != wanted:
                    await _declare(conn, wanted)
                    declared[0] = wanted
                try:
                    yield conn
                finally:
                    if declared[0] != outer and not conn.broken:
                        declared[0] = outer
                        if conn.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS:
                            await _declare(conn, outer)
            return
        pool = await self._current_pool()
        async with pool.connection() as conn, conn.transaction():
            await _declare(conn, wanted)
            token = _bound.set((self, conn, [wanted]))
            try:
                yield conn
            finally:
                _bound.reset(token)

    @asynccontextmanager
    async def read(self, tenant: TenantId | str) -> AsyncIterator[Connection]:
        """A connection for reads that need no transaction of their own: each statement
        commits alone, and the tenant is declared for the connection's session, once,
        only when it changes. A read costs one round trip where `transaction` costs four
        (BEGIN, declare, query, COMMIT), and a hybrid query makes several reads. Inside
        a transaction it joins it."""
        wanted = str(tenant)
        bound = _bound.get()
        if bound is not None and bound[0] is self:
            async with self.transaction(tenant) as conn:
                yield conn
            return
        pool = await self._current_pool()
        async with pool.connection() as conn:
            if self._declared.get(conn) != wanted:
                await conn.execute("SELECT set_config('redstring.tenant', %s, false)", (wanted,))
                self._declared[conn] = wanted
            yield conn

    @asynccontextmanager
    async def ddl(self) -> AsyncIterator[Connection]:
        """A transaction for schema changes, serialised across processes (`SCHEMA_LOCK`)."""
        async with self.transaction(ALL_TENANTS) as conn:
            await conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            yield conn


async def _declare(conn: Connection, tenant: str) -> None:
    await conn.execute("SELECT set_config('redstring.tenant', %s, true)", (tenant,))


def ddl_statements(statements: Sequence[str], walled: Sequence[str]) -> list[sql.Composed]:
    """`statements` (idempotent DDL), then the tenant wall on each table in `walled`.

    Every walled table has a `tenant_id uuid` column. The policy reads the setting
    with `missing_ok`, so a session that never declared a tenant sees no row rather
    than an error.
    """
    out = [sql.Composed([sql.SQL(statement)]) for statement in statements]
    check = sql.SQL(
        "(coalesce(current_setting('redstring.tenant', true), '') IN ('*', tenant_id::text))"
    )
    for table in walled:
        name = sql.Identifier(table)
        out += [
            sql.SQL("ALTER TABLE {} ENABLE ROW LEVEL SECURITY").format(name),
            sql.SQL("ALTER TABLE {} FORCE ROW LEVEL SECURITY").format(name),
            sql.SQL("DROP POLICY IF EXISTS tenant_wall ON {}").format(name),
            sql.SQL("CREATE POLICY tenant_wall ON {} USING {} WITH CHECK {}").format(
                name, check, check
            ),
        ]
    return out


#: True when every table named in the array exists *in the schema tables are created
#: in* (`current_schema()`, not wherever the search path finds one) and carries its
#: tenant wall: the last thing `ddl_statements` makes, so the schema is complete.
_WALLED_ALREADY = """SELECT coalesce(bool_and(EXISTS (
    SELECT 1 FROM pg_policy
    WHERE polrelid = to_regclass(quote_ident(current_schema()) || '.' || quote_ident(t))
      AND polname = 'tenant_wall'
)), false) FROM unnest(%s::text[]) AS t"""


async def create_tables(db: PgDatabase, statements: Sequence[str], walled: Sequence[str]) -> None:
    """Run `ddl_statements(statements, walled)` in one serialised DDL transaction, unless
    the walled tables are complete already. Why skip rather than rerun the idempotent
    DDL: `ALTER TABLE` and `CREATE POLICY` take an exclusive lock, and a process
    opening the database while another appends would deadlock with the appender's
    lock upgrade (read the stream head, then insert)."""
    async with db.ddl() as conn:
        if walled:
            done = await (await conn.execute(_WALLED_ALREADY, (list(walled),))).fetchone()
            if done is not None and done[0]:
                return
        for statement in ddl_statements(statements, walled):
            await conn.execute(statement)


def create_tables_sync(
    conn: SyncConnection, statements: Sequence[str], walled: Sequence[str]
) -> None:
    """`create_tables` on a blocking connection (a workspace opening), same lock and skip."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        if walled:
            done = conn.execute(_WALLED_ALREADY, (list(walled),)).fetchone()
            if done is not None and done[0]:
                return
        for statement in ddl_statements(statements, walled):
            conn.execute(statement)


def _redact(url: str) -> str:
    """`url` without its password, for error messages."""
    try:
        info = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "<unparsable URL>"
    host, port, dbname = info.get("host", ""), info.get("port", ""), info.get("dbname", "")
    return f"postgresql://{info.get('user', '')}@{host}:{port}/{dbname}"
