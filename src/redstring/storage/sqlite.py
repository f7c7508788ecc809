"""The one way redstring opens a SQLite connection, and the one way it opens a transaction.

Why a single factory: the embedded workspace is one file shared by the event log,
the graph store, the vector store and the projection checkpoints, and they only
agree on durability and locking if every connection is configured the same way.
Some Python builds (this project's CI among them) ship a `sqlite3` without
`enable_load_extension`, which sqlite-vec needs; there the factory falls back to
`pysqlite3` (the `pysqlite3-binary` wheel). The two drivers raise *different*
exception classes, so callers catch `driver.IntegrityError` etc. from this module,
never `sqlite3.IntegrityError` directly.

Why a single transaction helper: a projection folds an event into the graph and
vector stores and moves its checkpoint, and those writes must commit together.
`transaction(conn)` opens `BEGIN IMMEDIATE` at the outermost level and a
`SAVEPOINT` when a transaction is already open, so a store method that wraps its
own writes in `transaction(conn)` is atomic alone *and* composes into a caller's
larger transaction. (Python's `with conn:` would instead commit the caller's
transaction early -- adapters must not use it.)
"""

from __future__ import annotations

import importlib
import importlib.util
import itertools
import sqlite3
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import ModuleType

#: A DB-API connection from whichever driver `driver` is. Typed as the stdlib class:
#: `pysqlite3` mirrors its API exactly but ships no type information.
Connection = sqlite3.Connection

#: Milliseconds a writer waits for another connection's lock before `database is locked`.
BUSY_TIMEOUT_MS = 5000


def _pick_driver() -> ModuleType:
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        return sqlite3
    try:
        return importlib.import_module("pysqlite3.dbapi2")
    except ImportError as exc:  # pragma: no cover - depends on the platform's build
        raise ImportError(
            "this Python's sqlite3 cannot load extensions (needed for sqlite-vec) and "
            "the fallback driver `pysqlite3-binary` is not installed"
        ) from exc


def _vec0_path() -> str:
    """The sqlite-vec extension library, found without importing the `sqlite_vec`
    package: its `__init__` imports numpy for helpers we do not use, ~0.1 s of every
    command's start-up (`init`, `ingest` and `export` need no numpy). The package
    keeps it beside its `__init__` as `vec0`, which is what `loadable_path()` returns."""
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or spec.origin is None:  # pragma: no cover - a broken install
        raise ImportError("the sqlite-vec package is not installed")
    return str(Path(spec.origin).parent / "vec0")


#: The DB-API module every SQLite adapter uses (stdlib `sqlite3` or `pysqlite3.dbapi2`).
driver: ModuleType = _pick_driver()
Error = cast("type[sqlite3.Error]", driver.Error)
DatabaseError = cast("type[sqlite3.DatabaseError]", driver.DatabaseError)
IntegrityError = cast("type[sqlite3.IntegrityError]", driver.IntegrityError)
OperationalError = cast("type[sqlite3.OperationalError]", driver.OperationalError)

_savepoint_names = itertools.count(1)

#: Page cache per connection, in MiB (an upper bound: pages are allocated as used).
CACHE_MIB = 256


def open_connection(path: str | Path, *, load_vec: bool = True) -> Connection:
    """Open `path` (or `":memory:"`) configured the way every redstring adapter expects.

    - autocommit mode (`isolation_level=None`): transactions are opened only by
      `transaction()`, never implicitly by the driver.
    - WAL journal: readers never block the single writer, and a killed process
      loses nothing it committed.
    - `synchronous=FULL`: the event log is the source of truth, so a commit is
      synced before `append` returns, surviving power loss as well as a crash.
    - foreign keys on; a busy timeout so concurrent writers queue instead of failing.
    - a page cache of `CACHE_MIB` rather than SQLite's 2 MiB: a vec0 row lives in
      a chunk of ~1.5 MB, and a transaction deleting thousands of them (a
      consolidation's merges) re-read and re-wrote spilled pages, 0.78 ms per row
      against 0.06 ms with 64 MiB (10k vectors); and folding people-50k's 5,286
      merges (45k entities' rows, keys and lexicon entries deleted) took 4.2 s of
      deletes with 64 MiB, 1.9 s with 256.
    - sqlite-vec loaded (skip with `load_vec=False`), then extension loading is
      switched off again so SQL text can never load a library.
    """
    conn = cast("Connection", driver.connect(str(path), isolation_level=None))
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute(f"PRAGMA cache_size = -{CACHE_MIB * 1024}")
        if load_vec:
            conn.enable_load_extension(True)
            try:
                conn.load_extension(_vec0_path())
            finally:
                conn.enable_load_extension(False)
    except BaseException:
        conn.close()
        raise
    return conn


#: The connection whose open transaction was begun `whole` in this task's context:
#: transactions nested in it take no savepoint.
_WHOLE: ContextVar[Connection | None] = ContextVar("redstring_whole_transaction", default=None)


@contextmanager
def transaction(conn: Connection, *, whole: bool = False) -> Iterator[Connection]:
    """All writes inside commit together or not at all; nests via savepoints.

    Outermost: `BEGIN IMMEDIATE` takes the write lock up front, so a read-then-write
    (e.g. the event log's version check) cannot be interleaved by another writer.
    Nested: a named `SAVEPOINT`, released on success and rolled back to on error,
    leaving the outer transaction open for the caller to commit or roll back.

    `whole` (outermost only; nested, it changes nothing): the caller never catches
    an error inside the block, so any error rolls all of it back and the nested
    transactions need no savepoint of their own. A savepoint copies each page its
    writes touch to a statement journal: a consolidation's ~350 store calls, whose
    merged entities lie all over the tables, copied most pages each time (deleting
    people-50k's 44k merged rows in 27 batches: 0.16 s bare, 0.31 s in savepoints).
    """
    if conn.in_transaction:
        if _WHOLE.get() is conn:
            yield conn
            return
        name = f"rs_sp_{next(_savepoint_names)}"
        conn.execute(f"SAVEPOINT {name}")
        try:
            yield conn
        except BaseException:
            conn.execute(f"ROLLBACK TO SAVEPOINT {name}")
            conn.execute(f"RELEASE SAVEPOINT {name}")
            raise
        conn.execute(f"RELEASE SAVEPOINT {name}")
        return
    conn.execute("BEGIN IMMEDIATE")
    token = _WHOLE.set(conn) if whole else None
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.rollback()
        raise
    finally:
        if token is not None:
            _WHOLE.reset(token)
    conn.commit()


@contextmanager
def read_transaction(conn: Connection) -> Iterator[Connection]:
    """Every read inside sees one committed state of the file (a WAL snapshot).

    A deferred `BEGIN` takes no lock until the first read, then pins that snapshot:
    a writer committing meanwhile is not seen half-way (`neighbours` reading
    relationships then entities, `show` reading an entity then its relationships).
    Inside an open transaction it adds nothing: that transaction already pins one.
    """
    if conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        if conn.in_transaction:
            conn.rollback()
