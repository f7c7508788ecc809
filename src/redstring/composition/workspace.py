"""The embedded workspace: event log, graph, vectors, chunks and projections in ONE SQLite file.

The file is marked as redstring's twice over: `PRAGMA application_id` (in the
SQLite header, so `file(1)`-style tools and a stray `open` of some other app's
database can tell at once) and a `redstring_meta` table holding the schema
version. Opening refuses, with a `WorkspaceError` that says why, a file that is
not SQLite, a SQLite file of another application, or one written by a newer
redstring -- guessing at any of those risks writing into data we do not
understand. Everything in the file is reachable from one connection, which is
what lets a projection commit store writes and its checkpoint together.

`Workspace.open("postgresql://...")` opens the scale-out workspace instead: the
same ports on PostgreSQL + pgvector (`_open_postgres`, docs/adr/0017). Its
`redstring_meta` table plays the file header's part, checked the same way.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Self

from redstring.chunks.memory import InMemoryChunkStore
from redstring.chunks.sqlite import SqliteChunkStore
from redstring.domain.exceptions import InvalidInputError, NotFoundError, WorkspaceError
from redstring.domain.ids import tenant_id_for
from redstring.domain.log import StreamAppend
from redstring.eventlog.memory import InMemoryEventLog
from redstring.eventlog.sqlite import SqliteEventLog
from redstring.graph.memory import InMemoryGraphStore
from redstring.graph.sqlite import SqliteGraphStore
from redstring.projections.base import FreshEvents
from redstring.projections.checkpoints import InMemoryCheckpointStore, SqliteCheckpointStore
from redstring.projections.chunks import ChunkProjection
from redstring.projections.graph import GraphProjection
from redstring.projections.replay import replay
from redstring.projections.vector import VectorProjection
from redstring.storage.sqlite import (
    DatabaseError,
    OperationalError,
    open_connection,
    read_transaction,
    transaction,
)
from redstring.storage.urls import is_postgres_url
from redstring.vector.memory import InMemoryVectorStore
from redstring.vector.sqlite import SqliteVectorStore

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from types import TracebackType

    from redstring.domain.ids import TenantId
    from redstring.events.base import DomainEvent
    from redstring.ports.chunk_store import ChunkStore
    from redstring.ports.event_log import EventLog
    from redstring.ports.graph_store import GraphStore
    from redstring.ports.vector_store import VectorStore
    from redstring.projections.base import Projection
    from redstring.projections.checkpoints import CheckpointStore
    from redstring.storage.postgres import SyncConnection
    from redstring.storage.sqlite import Connection

#: Bumped whenever the file's tables change shape; `open` migrates older files and
#: refuses newer ones.
SCHEMA_VERSION = 1
#: "RSTR" in ASCII: the SQLite header field that says this file is redstring's.
APPLICATION_ID = 0x52535452
#: all-MiniLM-L6-v2, the default local embedding model.
DEFAULT_DIMENSION = 384
DEFAULT_PATH = "./redstring.db"


@dataclass
class Workspace:
    """Everything one embedded redstring needs, wired together.

    Ingestion appends events (`append`); readers see them after `catch_up()`.
    """

    log: EventLog
    graph: GraphStore
    vectors: VectorStore
    checkpoints: CheckpointStore
    graph_projection: GraphProjection
    vector_projection: VectorProjection
    chunks: ChunkStore
    chunk_projection: ChunkProjection
    path: Path | None = None
    _conn: Connection | None = field(default=None, repr=False)
    #: The PostgreSQL workspace's URL and blocking connection (settings, schema).
    url: str | None = None
    _pg: SyncConnection | None = field(default=None, repr=False)
    #: Settings of a memory workspace (a file keeps them in `redstring_meta`).
    _settings: dict[str, str] = field(default_factory=dict, repr=False)
    #: Events appended here and not yet folded by every projection (`FreshEvents`).
    _fresh: FreshEvents = field(default_factory=FreshEvents, repr=False)

    @contextmanager
    def atomic(self, *, whole: bool = False) -> Iterator[None]:
        """Everything written inside commits together or not at all (one SQLite
        transaction, one sync to disk instead of one per append). A memory workspace
        has nothing to commit. A PostgreSQL workspace commits each append and each
        projection batch on its own (this block is synchronous and its stores are
        not): every append is still all-or-nothing and every fold atomic with its
        checkpoint, but two appends inside one block are not one commit. `whole`:
        the caller catches no error inside, so the store calls within take no
        savepoints (`storage.sqlite.transaction`)."""
        if self._conn is None:
            yield
            return
        try:
            with transaction(self._conn, whole=whole):
                yield
        except BaseException:
            # Rolled back: the versions of its appends will name other events.
            self._fresh.clear()
            raise

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads inside see one committed state (one read transaction), however many
        statements they take; a concurrent writer lands before or after, never between.
        A memory workspace is only ever read between awaits of one event loop."""
        if self._conn is None:
            yield
            return
        with read_transaction(self._conn):
            yield

    def setting(self, key: str) -> str | None:
        """A workspace-wide setting (e.g. the embedding model it was built with)."""
        if self._pg is not None:
            found = self._pg.execute(
                "SELECT value FROM redstring_meta WHERE key = %s", (f"setting:{key}",)
            ).fetchone()
            return None if found is None else str(found[0])
        if self._conn is None:
            return self._settings.get(key)
        row = self._conn.execute(
            "SELECT value FROM redstring_meta WHERE key = ?", (f"setting:{key}",)
        ).fetchone()
        return None if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        if self._pg is not None:
            self._pg.execute(
                "INSERT INTO redstring_meta (key, value) VALUES (%s, %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (f"setting:{key}", value),
            )
            return
        if self._conn is None:
            self._settings[key] = value
            return
        with transaction(self._conn):
            self._conn.execute(
                "INSERT INTO redstring_meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (f"setting:{key}", value),
            )

    def tenant_names(self) -> list[str]:
        """Names registered with `register_tenant`, sorted."""
        if self._pg is not None:
            found = self._pg.execute(
                "SELECT key FROM redstring_meta WHERE key LIKE 'setting:tenant:%%' ORDER BY key"
            ).fetchall()
            return [str(row[0]).removeprefix("setting:tenant:") for row in found]
        if self._conn is None:
            return sorted(
                k.removeprefix("tenant:") for k in self._settings if k.startswith("tenant:")
            )
        rows = self._conn.execute(
            "SELECT key FROM redstring_meta WHERE key LIKE 'setting:tenant:%' ORDER BY key"
        ).fetchall()
        return [str(row[0]).removeprefix("setting:tenant:") for row in rows]

    def register_tenant(self, name: str) -> TenantId:
        """Give a human-readable tenant name its id (stable: `tenant_id_for`)."""
        if not name.strip():
            raise InvalidInputError("a tenant name must not be blank")
        _check_tenant_name(name)
        tenant = tenant_id_for(name)
        self.set_setting(f"tenant:{name}", str(tenant))
        return tenant

    async def settle_keys(self) -> None:
        """File the keys each registered tenant has pending: an SQLite graph files an
        entity's blocking keys and lexicon rows on their first read, not on write
        (`SqliteGraphStore.settle_keys`); the other stores file on write."""
        if isinstance(self.graph, SqliteGraphStore):
            for name in self.tenant_names():
                await self.graph.settle_keys(tenant_id_for(name))

    def tenant(self, name: str) -> TenantId:
        """The id of a registered tenant; `NotFoundError` naming the known ones otherwise."""
        _check_tenant_name(name)
        if self.setting(f"tenant:{name}") is None:
            known = ", ".join(self.tenant_names()) or "none yet"
            raise NotFoundError(f"unknown tenant {name!r} (known: {known})")
        return tenant_id_for(name)

    @classmethod
    def open(
        cls,
        path: str | Path = DEFAULT_PATH,
        *,
        create: bool = True,
        dimension: int | None = None,
        embedding_model: str | None = None,
    ) -> Workspace:
        """Open (or, with `create`, make) the workspace file at `path`.

        `dimension` is the vector width; a new file defaults to
        `DEFAULT_DIMENSION` and an existing file keeps the one it was made with
        (a different explicit value is refused by the vector store).
        `embedding_model` restricts the vector projection to one model's events.
        A `postgresql://` URL opens (or makes) a PostgreSQL workspace instead.
        """
        if isinstance(path, str) and is_postgres_url(path):
            return cls._open_postgres(
                path, create=create, dimension=dimension, embedding_model=embedding_model
            )
        file = Path(path)
        if file.is_dir():
            raise WorkspaceError(f"{file} is a directory, not a redstring workspace file")
        if not file.exists() and not create:
            raise WorkspaceError(f"no redstring workspace at {file} (pass create=True to make one)")
        try:
            conn = open_connection(file)
        except DatabaseError as exc:
            raise WorkspaceError(
                f"{file} is not a redstring workspace: not a SQLite database ({exc})"
            ) from exc
        try:
            stored_dimension = _prepare(conn, file, create=create, dimension=dimension)
            graph = SqliteGraphStore(conn)
            vectors = SqliteVectorStore(conn, stored_dimension)
            log = SqliteEventLog(conn)
            checkpoints = SqliteCheckpointStore(conn)
            chunks = SqliteChunkStore(conn)
        except BaseException:
            conn.close()
            raise
        return cls._wire(log, graph, vectors, chunks, checkpoints, embedding_model, file, conn)

    @classmethod
    def _open_postgres(
        cls, url: str, *, create: bool, dimension: int | None, embedding_model: str | None
    ) -> Workspace:
        """The scale-out workspace: every store on the database at `url` (its schema
        made here, blocking, under the DDL lock), the stores' own calls async. The
        PostgreSQL adapters are imported here: a SQLite workspace's commands do not
        pay for psycopg (~70 ms of every CLI call)."""
        from redstring.chunks import postgres as chunks_pg
        from redstring.eventlog import postgres as eventlog_pg
        from redstring.graph import postgres as graph_pg
        from redstring.projections import postgres as checkpoints_pg
        from redstring.storage.postgres import PgDatabase, create_tables_sync
        from redstring.vector.postgres import PostgresVectorStore

        db = PgDatabase(url)
        conn = db.connect_sync()
        try:
            stored_dimension = _prepare_postgres(conn, url, create=create, dimension=dimension)
            for module in (eventlog_pg, graph_pg, chunks_pg, checkpoints_pg):
                create_tables_sync(conn, module.SCHEMA, module.WALLED)
            PostgresVectorStore.create_sync(conn, stored_dimension)
        except BaseException:
            conn.close()
            raise
        workspace = cls._wire(
            eventlog_pg.PostgresEventLog(db),
            graph_pg.PostgresGraphStore(db),
            PostgresVectorStore(db, stored_dimension),
            chunks_pg.PostgresChunkStore(db),
            checkpoints_pg.PostgresCheckpointStore(db),
            embedding_model,
            None,
            None,
        )
        workspace.url, workspace._pg = url, conn
        return workspace

    @classmethod
    def memory(
        cls, *, dimension: int = DEFAULT_DIMENSION, embedding_model: str | None = None
    ) -> Workspace:
        """A workspace of in-memory adapters, for tests: same wiring, nothing on disk."""
        return cls._wire(
            InMemoryEventLog(),
            InMemoryGraphStore(),
            InMemoryVectorStore(dimension=dimension),
            InMemoryChunkStore(),
            InMemoryCheckpointStore(),
            embedding_model,
            None,
            None,
        )

    @classmethod
    def _wire(
        cls,
        log: EventLog,
        graph: GraphStore,
        vectors: VectorStore,
        chunks: ChunkStore,
        checkpoints: CheckpointStore,
        embedding_model: str | None,
        path: Path | None,
        conn: Connection | None,
    ) -> Workspace:
        fresh = FreshEvents()
        return cls(
            log=log,
            graph=graph,
            vectors=vectors,
            checkpoints=checkpoints,
            graph_projection=GraphProjection(graph, log, checkpoints, fresh=fresh),
            vector_projection=VectorProjection(
                vectors, log, checkpoints, model=embedding_model, fresh=fresh
            ),
            chunks=chunks,
            chunk_projection=ChunkProjection(chunks, log, checkpoints, fresh=fresh),
            path=path,
            _conn=conn,
            _fresh=fresh,
        )

    @property
    def projections(self) -> list[Projection]:
        return [self.graph_projection, self.vector_projection, self.chunk_projection]

    async def append(
        self, stream_id: str, events: Sequence[DomainEvent], *, expected_version: int
    ) -> int:
        """Append typed events of one tenant to `stream_id`; return the stream's new version."""
        return (await self.append_streams([(stream_id, events, expected_version)]))[0]

    async def append_streams(
        self, appends: Sequence[tuple[str, Sequence[DomainEvent], int]]
    ) -> list[int]:
        """Append typed events of one tenant to several streams at once (all or none),
        each `(stream_id, events, expected_version)`; return each stream's new version."""
        tenants = {event.tenant_id for _, events, _ in appends for event in events}
        if len(tenants) > 1:
            raise InvalidInputError(f"one append must belong to one tenant, got {len(tenants)}")
        if not tenants:
            raise InvalidInputError("an append needs at least one event (it names the tenant)")
        versions = await self.log.append_streams(
            [StreamAppend(stream_id, events, expected) for stream_id, events, expected in appends],
            tenant_id=tenants.pop(),
        )
        for stream_id, events, expected in appends:
            self._fresh.add(stream_id, expected + 1, events)
        return versions

    async def catch_up(self) -> None:
        """Fold everything appended since the last catch-up into every store."""
        try:
            for projection in self.projections:
                await projection.catch_up()
        finally:
            self._fresh.clear()

    async def replay(self) -> None:
        """Rebuild every store from the log alone (no model calls)."""
        await replay(self.log, self.projections)

    def close(self) -> None:
        if self._pg is not None:
            self._pg.close()
            self._pg = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _check_tenant_name(name: str) -> None:
    """A name with a lone surrogate (from JSON escapes or undecodable argv bytes) has no
    UTF-8 form to key the tenant by or to store."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(f"tenant name {name!r} is not valid Unicode") from exc


def _prepare(conn: Connection, file: Path, *, create: bool, dimension: int | None) -> int:
    """Check the file is ours and current, initializing an empty one; return its dimension.

    Runs in one write transaction, so two processes creating the same new file
    cannot both initialize it.
    """
    with transaction(conn):
        application_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if application_id == 0 and tables == 0:
            if not create:
                raise WorkspaceError(f"{file} is an empty database, not a redstring workspace")
            width = DEFAULT_DIMENSION if dimension is None else dimension
            if width < 1:
                raise InvalidInputError(f"dimension must be positive, got {width}")
            conn.execute("CREATE TABLE redstring_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            conn.executemany(
                "INSERT INTO redstring_meta (key, value) VALUES (?, ?)",
                [
                    ("schema_version", str(SCHEMA_VERSION)),
                    ("vector_dimension", str(width)),
                    ("created_at", datetime.now(UTC).isoformat()),
                ],
            )
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            return width
        if application_id != APPLICATION_ID:
            raise WorkspaceError(
                f"{file} is a SQLite database of another application "
                f"(application_id {application_id:#x}), not a redstring workspace"
            )
        try:
            meta = dict(conn.execute("SELECT key, value FROM redstring_meta").fetchall())
        except OperationalError as exc:
            raise WorkspaceError(f"{file} is marked as redstring's but has no metadata") from exc
        version = int(meta.get("schema_version", "0"))
        if version > SCHEMA_VERSION:
            raise WorkspaceError(
                f"{file} was written by a newer redstring (workspace schema {version}; this "
                f"version reads up to {SCHEMA_VERSION}); upgrade redstring to open it"
            )
        if version < 1 or "vector_dimension" not in meta:
            raise WorkspaceError(f"{file} has incomplete redstring metadata: {sorted(meta)}")
        stored = int(meta["vector_dimension"])
        return stored if dimension is None else dimension


async def release_connections() -> None:
    """Close the database connections the running event loop opened (PostgreSQL
    workspaces' pools; a SQLite workspace holds none), before that loop ends."""
    postgres = sys.modules.get("redstring.storage.postgres")
    if postgres is not None:  # no PostgreSQL workspace was opened otherwise
        await postgres.close_pools()


def location(db: str | Path) -> str | Path:
    """`db` as `Workspace.open` takes it: a file path, or a PostgreSQL URL.

    A URL that went through `pathlib.Path` (the CLI's `--db` option is a path) has had
    its `//` folded to `/`; it is restored here rather than read as a file name.
    """
    text = str(db)
    for scheme in ("postgresql:", "postgres:"):
        if text.startswith(scheme + "/") and not text.startswith(scheme + "//"):
            return scheme + "/" + text[len(scheme) :]
    return text if is_postgres_url(text) else Path(db)


def _prepare_postgres(
    conn: SyncConnection, url: str, *, create: bool, dimension: int | None
) -> int:
    """`_prepare` for a PostgreSQL database: make or check `redstring_meta`; return the
    vector dimension. One transaction under the DDL lock, so two processes opening a
    new database cannot both initialize it."""
    from redstring.storage.postgres import SCHEMA_LOCK

    where = url.split("@")[-1]
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        exists = conn.execute("SELECT to_regclass('redstring_meta') IS NOT NULL").fetchone()
        if exists is None or not exists[0]:
            if not create:
                raise WorkspaceError(f"no redstring workspace in the database at {where}")
            width = DEFAULT_DIMENSION if dimension is None else dimension
            if width < 1:
                raise InvalidInputError(f"dimension must be positive, got {width}")
            conn.execute("CREATE TABLE redstring_meta (key text PRIMARY KEY, value text NOT NULL)")
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO redstring_meta (key, value) VALUES (%s, %s)",
                    [
                        ("schema_version", str(SCHEMA_VERSION)),
                        ("vector_dimension", str(width)),
                        ("created_at", datetime.now(UTC).isoformat()),
                    ],
                )
            return width
        meta = {
            str(key): str(value)
            for key, value in conn.execute("SELECT key, value FROM redstring_meta").fetchall()
        }
    version = int(meta.get("schema_version", "0"))
    if version > SCHEMA_VERSION:
        raise WorkspaceError(
            f"the database at {where} was written by a newer redstring (workspace schema "
            f"{version}; this version reads up to {SCHEMA_VERSION}); upgrade redstring"
        )
    if version < 1 or "vector_dimension" not in meta:
        raise WorkspaceError(f"the database at {where} has incomplete redstring metadata")
    stored = int(meta["vector_dimension"])
    return stored if dimension is None else dimension
